// Must NOT compile: a format with two fields and one argument. The CTest test
// log_format_is_checked_at_compile_time builds this and expects fmt's format-string check
// to reject it (log_test.cc is the positive control: the same macros with matching args).
#include "log/log.h"

void LogWithAMissingArgument() { RS_LOG_INFO("test: two fields a={} b={}", 1); }

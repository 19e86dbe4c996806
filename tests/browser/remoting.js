'use strict';
// A minimal RocketMQ remoting client (JSON-serialized headers) for the browser test's
// data and its cross-checks: requests matched to answers by opaque; requests the server
// sends (to a consumer) are collected in serverRequests.
const net = require('net');

class Remoting {
  constructor(addr) {
    const [host, port] = addr.split(':');
    this.host = host; this.port = Number(port);
    this.opaque = 1; this.pending = new Map(); this.buf = Buffer.alloc(0); this.serverRequests = [];
  }
  connect() {
    return new Promise((resolve, reject) => {
      this.sock = net.connect(this.port, this.host, resolve);
      this.sock.once('error', reject);
      this.sock.on('data', d => this.onData(d));
    });
  }
  onData(d) {
    this.buf = Buffer.concat([this.buf, d]);
    while (this.buf.length >= 4) {
      const len = this.buf.readInt32BE(0);
      if (this.buf.length < 4 + len) return;
      const frame = this.buf.subarray(4, 4 + len);
      this.buf = this.buf.subarray(4 + len);
      const hlen = frame.readInt32BE(0) & 0xffffff;
      const header = JSON.parse(frame.subarray(4, 4 + hlen).toString('utf8'));
      const body = frame.subarray(4 + hlen);
      // A request from the server (flag bit 0 clear: e.g. RESET_CONSUMER_CLIENT_OFFSET 220
      // pushed to a consumer) has its own opaque: kept for the test to look at, not
      // matched against ours.
      if ((header.flag & 1) === 0) { this.serverRequests.push({ ...header, body }); continue; }
      const p = this.pending.get(header.opaque);
      if (p) { this.pending.delete(header.opaque); p({ ...header, body }); }
    }
  }
  request(code, extFields = {}, body = Buffer.alloc(0)) {
    const opaque = this.opaque++;
    const fields = {};
    for (const [k, v] of Object.entries(extFields)) fields[k] = String(v);
    const header = Buffer.from(JSON.stringify({ code, language: 'JAVA', version: 399, opaque, flag: 0, extFields: fields, serializeTypeCurrentRPC: 'JSON' }));
    const b = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const out = Buffer.alloc(8 + header.length + b.length);
    out.writeInt32BE(4 + header.length + b.length, 0);
    out.writeInt32BE(header.length, 4);
    header.copy(out, 8); b.copy(out, 8 + header.length);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => { this.pending.delete(opaque); reject(new Error(`timeout: request ${code}`)); }, 10000);
      this.pending.set(opaque, r => { clearTimeout(t); resolve(r); });
      this.sock.write(out);
    });
  }
  close() { if (this.sock) this.sock.destroy(); }
}

module.exports = { Remoting };

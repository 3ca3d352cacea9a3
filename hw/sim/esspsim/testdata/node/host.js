// An independent eSSP host driving the simulator: the npm package encrypted-smiley-secure-protocol
// (installed at test time, pinned by package-lock.json), run unmodified but for two things this
// machine cannot give it, both outside its protocol code:
//  - its serial port, the native module serialport, whose binary is neither prebuilt for this Node
//    nor buildable offline: the module is replaced by a stream over the pty's device file (the
//    simulator sets the line raw);
//  - its initEncryption, which draws 16-bit primes with crypto.createDiffieHellman(16), refused by
//    OpenSSL 3 ("modulus too small"): the script runs the same three commands through the package's
//    exec with primes of its own; the key derivation, the AES packets and the count stay the
//    package's.
// Usage: node host.js <pty path> <cents expected>. It prints one JSON line per step on stdout:
// {"ready":…} once the unit is enabled (the Go test then inserts the note), {"credit":…} when the
// package reports CREDIT_NOTE, then exits 0.
'use strict';
const fs = require('fs');
const tty = require('tty');
const { Duplex } = require('stream');
const Module = require('module');

class PtyPort extends Duplex {
  constructor(path) {
    super();
    this.fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
    this.rs = new tty.ReadStream(this.fd);
    this.rs.on('data', (d) => this.push(d));
    this.rs.on('error', (e) => this.emit('error', e));
    process.nextTick(() => this.emit('open'));
  }
  _read() {}
  _write(chunk, enc, cb) {
    try { fs.writeSync(this.fd, chunk); cb(); } catch (e) { cb(e); }
  }
  drain(cb) { cb(); }
  close() { this.rs.destroy(); }
}

const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'serialport') return PtyPort;
  return load.apply(this, arguments);
};

const SSP = require('encrypted-smiley-secure-protocol');
const { int64LE } = require('encrypted-smiley-secure-protocol/src/utils');

const [path, expected] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const fail = (why) => { out({ error: String(why) }); process.exit(1); };
setTimeout(() => fail('timeout'), 30000).unref();

function powMod(b, e, m) {
  let r = 1n; b %= m;
  for (; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}

async function keyExchange(ssp) {
  // Primes of the same size the package means to use, and a host secret of its own.
  ssp.keys.generatorKey = 65521n;
  ssp.keys.modulusKey = 65519n;
  ssp.keys.hostRandom = BigInt(1 + Math.floor(Math.random() * 65000));
  ssp.keys.hostIntKey = powMod(ssp.keys.generatorKey, ssp.keys.hostRandom, ssp.keys.modulusKey);
  for (const [cmd, v] of [['SET_GENERATOR', ssp.keys.generatorKey], ['SET_MODULUS', ssp.keys.modulusKey],
    ['REQUEST_KEY_EXCHANGE', ssp.keys.hostIntKey]]) {
    const r = await ssp.exec(cmd, int64LE(v));
    if (!r.success) throw new Error(cmd + ': ' + r.status);
  }
  ssp.count = 0;
  if (ssp.keys.key === null) throw new Error('no key derived');
}

(async () => {
  const ssp = new SSP({ id: 0, timeout: 1000, fixedKey: '0123456701234567' });
  await ssp.open(path);
  const ok = async (cmd, args) => {
    const r = await ssp.command(cmd, args);
    if (!r.success) throw new Error(cmd + ': ' + r.status);
    return r;
  };
  await ok('SYNC');
  await ok('HOST_PROTOCOL_VERSION', { version: 6 });
  await keyExchange(ssp);
  const serial = (await ok('GET_SERIAL_NUMBER')).info.serial_number;
  const setup = (await ok('SETUP_REQUEST')).info;
  const values = {};
  setup.channel_value.forEach((ch, i) => { values[i + 1] = setup.expanded_channel_value[i] * setup.real_value_multiplier; });
  await ok('SET_CHANNEL_INHIBITS', { channels: setup.channel_value.map(() => 1) });
  const seen = [];
  for (const name of ['READ_NOTE', 'NOTE_STACKING', 'NOTE_STACKED', 'NOTE_REJECTED', 'DISABLED', 'SLAVE_RESET']) {
    ssp.on(name, () => seen.push(name));
  }
  ssp.on('CREDIT_NOTE', (r) => {
    out({ credit: r.channel, cents: values[r.channel], serial, country: setup.country_code, seen });
    ssp.polling = false;
    setTimeout(() => process.exit(values[r.channel] === Number(expected) ? 0 : 2), 50);
  });
  await ok('ENABLE');
  ssp.enable();
  out({ ready: true, serial, firmware: setup.firmware_version, channels: Object.keys(values).length });
})().catch(fail);

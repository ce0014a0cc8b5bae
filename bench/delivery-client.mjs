// CPU per delivery: got-scraping (with the options replay and forwarding use) against got alone and
// plain node:http, all on the same keep-alive agent, posting 1 KB to a receiver in this process, 16
// at a time.
//
//   node bench/delivery-client.mjs
//
// Each sender runs twice, alternating; the CPU figure covers sender and receiver (one process).
import http from 'node:http';
import { got } from 'got';
import { gotScraping } from 'got-scraping';
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/x`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const body = Buffer.alloc(1024, 'a');
async function viaGot() {
  const r = await gotScraping(url, { method: 'POST', body, headers: {'content-type':'application/json'}, useHeaderGenerator: false, followRedirect: false, retry: { limit: 0 }, allowGetBody: true, decompress: false, throwHttpErrors: false, http2: false, agent: { http: agent } });
  return r.statusCode;
}
async function viaPlainGot() {
  const r = await got(url, { method: 'POST', body, headers: {'content-type':'application/json'}, followRedirect: false, retry: { limit: 0 }, allowGetBody: true, decompress: false, throwHttpErrors: false, agent: { http: agent } });
  return r.statusCode;
}
function viaHttp() {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: {'content-type':'application/json','content-length': body.length} }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    req.on('error', reject); req.end(body);
  });
}
for (const [name, fn] of [['http', viaHttp], ['got-scraping', viaGot], ['got', viaPlainGot], ['http', viaHttp], ['got-scraping', viaGot], ['got', viaPlainGot]]) {
  const n = 3000; const cpu0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n; i += 16) await Promise.all(Array.from({length: 16}, fn));
  const t = performance.now() - t0; const c = process.cpuUsage(cpu0);
  console.log(name, (n / t * 1000).toFixed(0), 'req/s', ((c.user + c.system) / n).toFixed(0), 'µs CPU/req (client+server)');
}
server.close(); agent.destroy();

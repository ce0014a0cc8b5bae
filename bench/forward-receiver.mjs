// The forward target of bench/forward-throughput.mjs: a bare node:http server that counts the requests
// it receives (GET /count answers the count) and answers 200 OK.
import { createServer } from 'node:http';

let received = 0;
const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/count') {
        res.end(String(received));
        return;
    }
    req.on('data', () => undefined);
    req.on('end', () => {
        received++;
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 });
        res.end('OK');
    });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

// The ceiling: a bare node:http server that reads the body and answers 200 OK.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
        Buffer.concat(chunks);
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 });
        res.end('OK');
    });
});
server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

import { connect } from 'node:net';

export interface RawReply {
  status: number;
  head: string;
  body: string;
}

/**
 * Sends bytes as they are (fetch and node:http refuse CR/LF or control characters in headers, which is what
 * header-injection inputs contain) and reads the reply until the server closes the connection.
 */
export function rawRequest(port: number, request: Buffer | string, timeoutMs = 5000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('raw request timed out'));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const bytes = Buffer.concat(chunks);
      const split = bytes.indexOf('\r\n\r\n');
      const head = (split < 0 ? bytes : bytes.subarray(0, split)).toString('latin1');
      let body: Buffer = split < 0 ? Buffer.alloc(0) : bytes.subarray(split + 4);
      if (/\r\ntransfer-encoding: chunked/i.test(head)) body = dechunk(body);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, body: body.toString('utf8') });
    });
    // No half-close: Node's server drops a connection whose client has ended before an async reply.
    socket.write(request);
  });
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let rest = bytes;
  for (;;) {
    const line = rest.indexOf('\r\n');
    if (line < 0) break;
    const size = parseInt(rest.subarray(0, line).toString('latin1'), 16);
    if (!size) break;
    parts.push(rest.subarray(line + 2, line + 2 + size));
    rest = rest.subarray(line + 2 + size + 2);
  }
  return Buffer.concat(parts);
}

import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Map<string, string>;
  body: string;
}

/** One HTTP/1.1 request on its own socket, written in parts, so a test decides when it is complete. */
export interface RawRequest {
  /** Sends more of the request (the rest of the headers, part of the body). */
  write(text: string): void;
  /** The first response on the socket; undefined when the server closed it without one. */
  response: Promise<RawResponse | undefined>;
  /** Settles when the socket is closed (by either side). */
  closed: Promise<void>;
  destroy(): void;
}

/**
 * Opens a socket to 127.0.0.1:port and writes `firstPart`. fetch cannot hold a request half-sent, which
 * is what tests of a draining server need: an in-flight request (headers sent, body not) and a
 * connection that is busy, not idle, when the drain starts.
 */
export async function openRawRequest(port: number, firstPart: string): Promise<RawRequest> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined); // a reset by the server shows as `closed` / an undefined response
  let received = Buffer.alloc(0);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const response = new Promise<RawResponse | undefined>((resolve) => {
    const tryParse = (final: boolean) => {
      const parsed = parseResponse(received);
      if (parsed || final) resolve(parsed);
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      tryParse(false);
    });
    void closed.then(() => tryParse(true));
  });
  socket.write(firstPart);
  return {
    write: (text) => void socket.write(text),
    response,
    closed,
    destroy: () => socket.destroy(),
  };
}

/** A complete Content-Length response, else undefined (no chunked decoding: tests here need none). */
function parseResponse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get('content-length') ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString() };
}

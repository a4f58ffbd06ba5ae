import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { EsError } from '../errors/es-error';
import { OAuthError } from '../errors/oauth-error';

/**
 * Requests Node's HTTP parser refuses before express sees them (CR/LF or control characters in a header,
 * a broken request line, oversized headers) would get a bare `400 Bad Request` with no body; answer them in
 * the service's own envelope instead, and never echo any of the request back.
 */
export function answerMalformedHttp(server: Server, envelope: 'oauth' | 'es'): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body =
      envelope === 'oauth'
        ? new OAuthError('invalid_request', 'malformed HTTP request').toBody()
        : new EsError('illegal_argument_exception', 'malformed HTTP request', { status }).toBody();
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });
}

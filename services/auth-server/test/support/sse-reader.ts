/** A raw reader of a Server-Sent Events response for tests: the wire, parsed just enough. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface SseReader {
  status: number;
  headers: Headers;
  /** Every event so far, and the comment lines (without the leading colon). */
  events: SseEvent[];
  comments: string[];
  /** Resolves with the first event (already received or coming) that matches, else rejects after timeoutMs. */
  waitFor(match: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  waitForComment(match: (comment: string) => boolean, timeoutMs?: number): Promise<string>;
  close(): void;
}

export async function openSse(url: string, authorization?: string): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...(authorization ? { authorization } : {}) },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  const parse = (block: string) => {
    const event: SseEvent = { event: 'message', data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      else if (line.startsWith('event:')) event.event = line.slice(6).trim();
      else if (line.startsWith('id:')) event.id = line.slice(3).trim();
    }
    event.data = data.join('\n');
    if (data.length) events.push(event);
  };
  if (response.status === 200 && response.body) {
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            parse(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
          for (const waiter of waiters) waiter();
        }
      } catch {
        // aborted by close()
      }
    })();
  }
  const waitUntil = <T>(find: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const found = find();
      if (found !== undefined) return resolve(found);
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = () => {
        const hit = find();
        if (hit === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(hit);
      };
      waiters.add(check);
    });
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    waitFor: (match, timeoutMs = 2000) => waitUntil(() => events.find(match), timeoutMs, 'matching event'),
    waitForComment: (match, timeoutMs = 2000) =>
      waitUntil(() => comments.find(match), timeoutMs, 'matching comment'),
    close: () => controller.abort(),
  };
}

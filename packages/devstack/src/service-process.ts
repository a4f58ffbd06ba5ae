import { spawn, type ChildProcess } from 'node:child_process';

export interface ServiceProcess {
  name: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a built service (`node dist/main.js`) with env only, prefixing its log lines, and waits for /ready. */
export async function startServiceProcess(options: {
  name: string;
  script: string;
  env: Record<string, string>;
  port: number;
  quiet?: boolean;
}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [options.script], {
    env: { PATH: process.env.PATH ?? '', ...options.env, PORT: String(options.port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = (chunk: Buffer) => {
    if (options.quiet) return;
    for (const line of chunk.toString().split('\n').filter(Boolean))
      process.stdout.write(`[${options.name}] ${line}\n`);
  };
  const errors: string[] = [];
  child.stdout?.on('data', prefix);
  child.stderr?.on('data', (chunk: Buffer) => {
    errors.push(chunk.toString());
    prefix(chunk);
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${options.name} exited during start: ${errors.join('').slice(-2000)}`);
    try {
      const response = await fetch(`${url}/ready`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${options.name} did not become ready within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    name: options.name,
    url,
    child,
    async stop() {
      if (exited) return;
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await done;
    },
  };
}

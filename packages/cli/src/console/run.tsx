/** Renders the console on the terminal (alternate screen) until the user quits. */
import { render } from 'ink';
import type { Remote } from '../remote.js';
import { App } from './app.js';

export async function runConsole(remote: Remote): Promise<void> {
  const { stdout } = process;
  // The alternate screen: the shell's scrollback comes back untouched on quit.
  stdout.write('\x1b[?1049h\x1b[H');
  const restore = () => stdout.write('\x1b[?1049l');
  try {
    const app = render(<App api={remote.api} url={remote.url} />, { exitOnCtrlC: true, patchConsole: true });
    await app.waitUntilExit();
    app.cleanup();
  } finally {
    restore();
  }
}

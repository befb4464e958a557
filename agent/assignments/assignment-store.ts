import { hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { SecretBox } from '../../common/secret-box.js';
import { writeFileAtomically } from '../../common/write-file-atomically.js';
import { agentAssignments, type Assignments } from '../../common/agent-protocol/assignments.js';

const associatedData = 'dbmon-agent assignments';

/**
 * The last assignments the server sent, kept on disk so that an agent restarted while the server
 * is down goes on collecting them. They hold database passwords, so the file is sealed with
 * AES-256-GCM under a key derived (HKDF-SHA256) from the agent key: whoever can open it could
 * fetch the same assignments from the server. Written whole (temporary file, fsync, rename), 0600;
 * the temporary file is always created anew (O_EXCL), so a link planted at its path is never followed.
 */
export class AssignmentStore {
  readonly #box: SecretBox;
  #saved: string | undefined;

  constructor(
    private readonly file: string,
    agentKey: string,
    private readonly logger: Logger,
  ) {
    this.#box = new SecretBox(Buffer.from(hkdfSync('sha256', agentKey, 'dbmon-agent', associatedData, 32)));
  }

  /** The saved assignments; undefined when there are none or they cannot be read (said in the log). */
  load(): Assignments | undefined {
    let sealed: Buffer;
    try {
      sealed = readFileSync(this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.ignore((error as Error).message);
      return undefined;
    }
    let json: string;
    try {
      json = this.#box.open(sealed, associatedData);
    } catch {
      return this.ignore('it does not decrypt with this agent key');
    }
    // Errors past this point would quote the decrypted text, passwords included: none is logged.
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return this.ignore('it is not JSON');
    }
    const assignments = agentAssignments.safeParse(parsed);
    if (!assignments.success) return this.ignore('it is not a list of assignments');
    this.#saved = json;
    return assignments.data;
  }

  /** Keeps these assignments for the next start; writes only when they changed. */
  save(assignments: Assignments): void {
    const json = JSON.stringify(assignments);
    if (json === this.#saved) return;
    writeFileAtomically(this.file, this.#box.seal(json, associatedData));
    this.#saved = json;
  }

  /** A changed agent key, a damaged file: the server's next answer replaces it. */
  private ignore(reason: string): undefined {
    this.logger.warn({ file: this.file, reason }, 'ignoring the saved assignments');
    return undefined;
  }
}

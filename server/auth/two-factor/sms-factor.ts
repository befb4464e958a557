import { ApiError, ConflictError, InvalidRequestError } from '../../errors.js';
import type { SmsSender } from '../../sms/sms-sender.js';
import type { User } from '../identity/user.js';
import { ThrottledError } from '../throttling/throttled-error.js';
import { smsCodeValidityMs, type SmsCodes } from './sms-codes.js';
import type { PhoneBox } from './phone-box.js';
import type { SmsSendLimit } from './sms-send-limit.js';
import type { TwoFactorMethodRow, TwoFactorRepository } from './two-factor-repository.js';
import type { FactorOwner, TwoFactorService } from './two-factor-service.js';

export interface SmsSent {
  /** The last two digits of the number the code went to, to tell the user where to look. */
  phoneEnding: string;
  expiresAt: Date;
}

/**
 * SMS as a second factor: a phone number counts once a code sent to it came back, and at sign-in a
 * code is sent on request, bound to the pending sign-in that asked for it. Codes: SmsCodes; sends:
 * SmsSendLimit. Without a configured sender (sms.sender) nothing is sent: 409 sms_not_configured.
 */
export class SmsFactor {
  constructor(
    private readonly methods: TwoFactorRepository,
    private readonly twoFactor: TwoFactorService,
    private readonly codes: SmsCodes,
    private readonly limit: SmsSendLimit,
    private readonly sender: SmsSender | undefined,
    private readonly phones: PhoneBox,
  ) {}

  /** Whether the server can text at all (sms.sender is set). */
  get available(): boolean {
    return this.sender !== undefined;
  }

  /** The last two digits of the user's number, and whether a code confirmed it; undefined without one. */
  phoneOf(userId: string): { ending: string; confirmed: boolean } | undefined {
    const row = this.#row(userId);
    return row === undefined ? undefined : { ending: this.#phone(row).slice(-2), confirmed: row.confirmed_at !== null };
  }

  /** Whether sign-in may offer to text this user a code: a sender is configured and their number is confirmed. */
  offeredTo(userId: string): boolean {
    return this.sender !== undefined && this.#row(userId)?.confirmed_at != null;
  }

  /** Starts (or starts over, with this number) phone enrollment: the number is stored pending and a code sent to it. */
  async start(user: User, phone: string, now: Date): Promise<SmsSent> {
    if (this.#row(user.id)?.confirmed_at) throw new ConflictError('already_enabled', 'A phone is already set up for SMS codes; remove it first');
    this.#take(user.id, phone, now);
    this.methods.save({
      user_id: user.id,
      method: 'sms',
      secret: null,
      sealed_phone: this.phones.seal(user.id, phone),
      confirmed_at: null,
      last_time_step: null,
      created_at: now.toISOString(),
    });
    return this.#send(phone, this.codes.issue(enrollmentBinding(user.id, phone), now), now);
  }

  /** Finishes phone enrollment with the code sent; answers 10 recovery codes when SMS is the user's first factor, none otherwise. */
  confirm(owner: FactorOwner, code: string, now: Date): string[] {
    const { user } = owner;
    const pending = this.#row(user.id);
    if (pending === undefined || pending.confirmed_at !== null) throw new ConflictError('no_enrollment', 'No phone enrollment is waiting; start one first');
    if (!this.codes.consume(enrollmentBinding(user.id, this.#phone(pending)), code, now)) {
      throw new InvalidRequestError('invalid_code', 'The code is not the one sent, has expired or was already used', 'code');
    }
    return this.twoFactor.enable(owner, 'sms', null, now, { newRecoveryCodes: user.two_factor_enabled !== 1 });
  }

  /** Sends a sign-in code to the user's confirmed number, usable only by the pending sign-in `pendingToken`. */
  async sendSignInCode(userId: string, pendingToken: string, now: Date): Promise<SmsSent> {
    const row = this.#row(userId);
    if (row?.confirmed_at == null) throw new ConflictError('two_factor_not_enabled', 'No phone is set up for SMS codes');
    const phone = this.#phone(row);
    this.#take(userId, phone, now);
    return this.#send(phone, this.codes.issue(signInBinding(pendingToken), now), now);
  }

  /** Whether `code` is the one sent for this pending sign-in, to a number the user still has; it passes once. */
  verifySignInCode(userId: string, pendingToken: string, code: string, now: Date): boolean {
    return this.codes.consume(signInBinding(pendingToken), code, now) && this.#row(userId)?.confirmed_at != null;
  }

  #row(userId: string): TwoFactorMethodRow | undefined {
    return this.methods.ofUser(userId).find((row) => row.method === 'sms');
  }

  #phone(row: TwoFactorMethodRow): string {
    return this.phones.open(row.user_id, row.sealed_phone!);
  }

  #take(userId: string, phone: string, now: Date): void {
    if (this.sender === undefined) throw new ConflictError('sms_not_configured', 'This server sends no text messages (sms.sender is not set)');
    const decision = this.limit.take(userId, phone, now.getTime());
    if (!decision.allowed) throw new ThrottledError(decision, now.getTime());
  }

  async #send(phone: string, code: string, now: Date): Promise<SmsSent> {
    try {
      await this.sender!.send({ to: phone, body: `Your dbmon code is ${code}. It expires in ${smsCodeValidityMs / 60_000} minutes. Never give it to anyone.` });
    } catch {
      throw new ApiError(503, 'api_error', 'The text message could not be sent; try again later', 'sms_not_sent');
    }
    return { phoneEnding: phone.slice(-2), expiresAt: new Date(now.getTime() + smsCodeValidityMs) };
  }
}

function enrollmentBinding(userId: string, phone: string): string {
  return `enroll:${userId}:${phone}`;
}

function signInBinding(pendingToken: string): string {
  return `sign_in:${pendingToken}`;
}

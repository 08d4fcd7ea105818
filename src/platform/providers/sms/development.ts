// The development number provider: its state is the sms_configs rows. A "bought" number is a random
// US toll-free number in the fictional 555 exchange that no clinic's row holds; releasing it needs
// nothing beyond the row the caller clears. It accepts any well-formed credentials (it cannot ask
// Twilio whether they are right); everything else answers as Twilio does.
import { eq } from 'drizzle-orm';
import { smsConfigs } from '../../../../drizzle/schema';
import { ProviderError } from '../errors';
import type { ProvisionedNumber, SmsNumberProvider, SmsProviderContext } from './types';

const TOLL_FREE_PREFIXES = ['800', '833', '844', '855', '866', '877', '888'] as const;
const ATTEMPTS = 8;

const randomInt = (below: number) => crypto.getRandomValues(new Uint32Array(1))[0]! % below;

/** A random +1 8XX 555 NNNN number. */
export function developmentTollFreeNumber(): string {
  const prefix = TOLL_FREE_PREFIXES[randomInt(TOLL_FREE_PREFIXES.length)]!;
  return `+1${prefix}555${String(randomInt(10_000)).padStart(4, '0')}`;
}

/** A Twilio-shaped number sid: PN + 32 hex. */
export const developmentNumberSid = () => `PN${crypto.randomUUID().replace(/-/g, '')}`;

export class DevelopmentSmsNumbers implements SmsNumberProvider {
  readonly name = 'development';

  async provisionTollFreeNumber(_input: { clinicId: string }, { db }: SmsProviderContext): Promise<ProvisionedNumber> {
    for (let i = 0; i < ATTEMPTS; i++) {
      const phoneNumber = developmentTollFreeNumber();
      const [held] = await db
        .select({ clinicId: smsConfigs.clinicId })
        .from(smsConfigs)
        .where(eq(smsConfigs.phoneNumber, phoneNumber))
        .limit(1);
      if (!held) return { phoneNumber, providerNumberId: developmentNumberSid() };
    }
    throw new ProviderError(
      'sms_numbers',
      this.name,
      'no_numbers',
      'development: no toll-free number is available (every number tried is held by a clinic)',
    );
  }

  async releaseNumber(): Promise<void> {
    // Nothing outside the row: clearing its number frees it.
  }
}

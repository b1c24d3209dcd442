/**
 * Reads the mail the local SES server received (its `GET /store`), as a user reads their inbox.
 */

import { until } from './patience.ts';
import { stack } from './stack.ts';

export interface ReceivedMail {
  subject: string;
  destination: { to: string[] };
  body: { text?: string; html?: string };
  at: number;
}

export async function inbox(address: string): Promise<ReceivedMail[]> {
  const response = await fetch(`${stack().ses}/store`);
  const { emails } = (await response.json()) as { emails: ReceivedMail[] };
  return emails.filter((mail) => mail.destination.to.some((to) => to.toLowerCase() === address.toLowerCase()));
}

/** Waits for the `count`-th mail to an address (1 = the first ever sent to it). */
export async function waitForMail(address: string, count = 1): Promise<ReceivedMail> {
  let had = 0;
  return until(
    async () => {
      const mails = await inbox(address);
      had = mails.length;
      return mails.length >= count && mails.sort((a, b) => a.at - b.at)[count - 1]!;
    },
    () => `mail #${count} to ${address} (have ${had})`,
    200,
  );
}

/** The reset link of a mail and what its fragment carries. */
export function resetLinkOf(mail: ReceivedMail) {
  const match = /(https?:\/\/\S+\/password-reset#\S+)/.exec(mail.body.text ?? '');
  if (!match) throw new Error(`no reset link in: ${mail.body.text}`);
  const url = new URL(match[1]!);
  const fragment = new URLSearchParams(url.hash.slice(1));
  return { url: url.toString(), userId: fragment.get('user')!, token: fragment.get('token')!, environment: fragment.get('environment') };
}

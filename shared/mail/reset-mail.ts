/**
 * The password-reset e-mail: a link to the hosted reset form. The token travels in the link's
 * fragment, which browsers never send to a server, so it stays out of access logs.
 */
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { serviceClient } from '../client-hooks.ts';
import { config } from '../config.ts';
import { traced } from '../tracer.ts';

let client: SESClient | undefined;
const ses = () => (client ??= serviceClient(traced(new SESClient({})), 'ses'));

export interface ResetMail {
  to: string;
  accountId: string;
  accountName: string;
  userId: string;
  environmentId: string | null;
  token: string;
}

export function resetLink(mail: Omit<ResetMail, 'to' | 'accountName'>): string {
  const fragment = new URLSearchParams({ user: mail.userId, token: mail.token });
  if (mail.environmentId) fragment.set('environment', mail.environmentId);
  return `${config.publicUrl}/v1/accounts/${mail.accountId}/password-reset#${fragment}`;
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);

export async function sendResetMail(mail: ResetMail): Promise<void> {
  const link = resetLink(mail);
  const subject = `Reset your ${mail.accountName} password`;
  const text = [
    `Someone asked to set a new password for ${mail.to} at ${mail.accountName}.`,
    '',
    `Choose a new password here (the link works once, for 24 hours):`,
    link,
    '',
    'If it was not you, ignore this mail: your password stays as it is.',
  ].join('\n');
  const html = `<p>Someone asked to set a new password for ${escapeHtml(mail.to)} at ${escapeHtml(mail.accountName)}.</p>
<p><a href="${escapeHtml(link)}">Choose a new password</a> (the link works once, for 24 hours).</p>
<p>If it was not you, ignore this mail: your password stays as it is.</p>`;
  await ses().send(
    new SendEmailCommand({
      Source: config.mailFrom,
      Destination: { ToAddresses: [mail.to] },
      Message: {
        Subject: { Data: subject, Charset: 'UTF-8' },
        Body: { Text: { Data: text, Charset: 'UTF-8' }, Html: { Data: html, Charset: 'UTF-8' } },
      },
    }),
  );
}

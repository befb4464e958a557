import type { MailMessage } from '../../mail/mailer.js';
import type { IssuedLink } from './one-time-links.js';

export interface Invitation {
  email: string;
  role: string;
  organization: string;
  invitedBy: string;
}

export function invitationMessage(invitation: Invitation, link: IssuedLink): MailMessage {
  return {
    to: invitation.email,
    subject: `Your invitation to ${invitation.organization} on dbmon`,
    text:
      `${invitation.invitedBy} invited you to the organization ${invitation.organization} on dbmon, as ${invitation.role}.\n\n` +
      `Choose your name and password here (the link works once, for 7 days):\n${link.url}\n\n` +
      'If you did not expect this invitation, ignore this mail.\n',
  };
}

export function passwordResetMessage(email: string, link: IssuedLink): MailMessage {
  return {
    to: email,
    subject: 'Reset your dbmon password',
    text:
      `Someone asked to reset the password of ${email} on dbmon.\n\n` +
      `Choose a new password here (the link works once, for 1 hour); it signs you out everywhere:\n${link.url}\n\n` +
      'If it was not you, ignore this mail: your password stays as it is.\n',
  };
}

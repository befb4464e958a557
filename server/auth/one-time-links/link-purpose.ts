/** What a one-time link lets its holder do. */
export const linkPurposes = ['invitation', 'password_reset'] as const;
export type LinkPurpose = (typeof linkPurposes)[number];

import type { User } from '../identity/user.js';

export function presentUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    status: user.status,
    two_factor_enabled: user.two_factor_enabled === 1,
    created_at: user.created_at,
    last_sign_in_at: user.last_sign_in_at,
  };
}

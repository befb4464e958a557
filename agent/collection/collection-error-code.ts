import type { CollectionErrorCode } from '../../common/agent-protocol/error-codes.js';
import { NoStoredPasswordError } from '../sources/postgres-client-config.js';

/** Node's system error codes, PostgreSQL SQLSTATEs and mysql2's error codes, by what they mean to an operator. */
const byDriverCode: Record<string, CollectionErrorCode> = {
  ETIMEDOUT: 'timeout',
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'host_not_found',
  EAI_AGAIN: 'host_not_found',
  EHOSTUNREACH: 'host_unreachable',
  ENETUNREACH: 'host_unreachable',
  EHOSTDOWN: 'host_unreachable',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls_error',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls_error',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls_error',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls_error',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls_error',
  CERT_HAS_EXPIRED: 'tls_error',
  HANDSHAKE_NO_SSL_SUPPORT: 'tls_error',
  // PostgreSQL: invalid_password, invalid_authorization_specification (no pg_hba.conf entry, unknown role).
  '28P01': 'authentication_failed',
  '28000': 'authentication_failed',
  '3D000': 'database_not_found',
  '53300': 'too_many_connections',
  '57P03': 'server_starting',
  ER_ACCESS_DENIED_ERROR: 'authentication_failed',
  ER_DBACCESS_DENIED_ERROR: 'authentication_failed',
  // MariaDB's answer when the (possibly faked) authentication plugin is one that takes no password.
  ER_ACCESS_DENIED_NO_PASSWORD_ERROR: 'authentication_failed',
  ER_BAD_DB_ERROR: 'database_not_found',
  ER_CON_COUNT_ERROR: 'too_many_connections',
  ER_TOO_MANY_USER_CONNECTIONS: 'too_many_connections',
};

/** The code of an error a source threw while reaching its database; `collection_failed` when none fits. */
export function collectionErrorCode(error: unknown): CollectionErrorCode {
  if (error instanceof NoStoredPasswordError) return 'authentication_failed';
  const code = (error as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && byDriverCode[code]) || 'collection_failed';
}

/** The engines dbmon monitors, as the protocol, the API and the metric catalog name them. */
export const databaseTypes = ['postgresql', 'mysql', 'mariadb'] as const;
export type DatabaseType = (typeof databaseTypes)[number];

/** "15.20 (Debian 15.20-0+deb12u1)" and "10.11.19-MariaDB-0+deb12u1" become "15.20" and "10.11.19". */
export function leadingVersion(reported: string): string {
  return /^\d+(\.\d+)*/.exec(reported.trim())?.[0] ?? reported.trim();
}

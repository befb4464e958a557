/** This package's version (kept equal to package.json's, a test checks), sent in the User-Agent. */
export const version = '0.1.0';

// ua-parser-js 1.x (MIT) ships no types; the part of its API that session-presenter.ts uses.
declare module 'ua-parser-js' {
  interface UAPart {
    name?: string;
    version?: string;
  }
  interface UAResult {
    browser: UAPart & { major?: string };
    os: UAPart;
    device: { type?: string; vendor?: string; model?: string };
  }
  export default class UAParser {
    constructor(userAgent?: string);
    getResult(): UAResult;
  }
}

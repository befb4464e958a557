// pg asks, as it loads, whether it runs in a Cloudflare Worker: by `navigator.userAgent`, and where
// there is no navigator (Node 20; Node 21 on has one) by building a `Response`, which loads
// undici, node's fetch, about 5 MiB resident that the agent never uses (BENCHMARKS.md, session 7).
// Node 21's navigator, given to Node 20 before pg loads, answers the question without it.
import './node-navigator.js';

export { default as pg } from 'pg';

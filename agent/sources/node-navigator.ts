const nodeNavigator = { userAgent: `Node.js/${process.versions.node.split('.')[0]}` };

(globalThis as { navigator?: unknown }).navigator ??= nodeNavigator;

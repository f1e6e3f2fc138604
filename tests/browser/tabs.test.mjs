// net.js in node, with two fake tabs that share one fake localStorage: the
// order of events that a browser may produce but a real one seldom does.
// Both tabs are logged out at once (a logout everywhere) and each gets its
// new guest's welcome before either sees the other's storage event; they
// must settle on one token, not follow each other back and forth.

import assert from 'node:assert/strict';
import { test } from 'node:test';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The fake browser. `tab` is the tab whose code runs (listeners and
// sockets belong to it); a storage change reaches the other tabs' 'storage'
// listeners as a task, after the messages already on their way.
const listeners = [];     /* { tab, type, fn } */
const store = new Map();
let tab = 0;
let guests = 0;
const sockets = [];

function storageEvent(key, writer) {
    setTimeout(() => {
        for (const l of listeners)
            if (l.type === 'storage' && l.tab !== writer)
                l.fn({ key });
    }, 0);
}

globalThis.window = {
    addEventListener: (type, fn) => listeners.push({ tab, type, fn }),
};
globalThis.document = { addEventListener() {}, visibilityState: 'visible' };
globalThis.location = { protocol: 'http:', host: 'test' };
globalThis.localStorage = {
    getItem: (k) => (store.has(k) ? store.get(k) : null),
    setItem(k, v) {
        if (store.get(k) === String(v))
            return;
        store.set(k, String(v));
        storageEvent(k, tab);
    },
    removeItem(k) {
        if (!store.has(k))
            return;
        store.delete(k);
        storageEvent(k, tab);
    },
};

// A server that answers hello: a new guest (a new token), or the player of
// the token named. Answers come as microtasks, ahead of any storage event.
class FakeSocket {
    static OPEN = 1;

    constructor() {
        this.tab = tab;
        this.readyState = 1;
        this.handlers = {};
        sockets.push(this);
        queueMicrotask(() => this.fire('open', {}));
    }

    addEventListener(type, fn) {
        this.handlers[type] = fn;
    }

    fire(type, ev) {
        if (this.handlers[type] && this.readyState === 1) {
            const was = tab;
            tab = this.tab;
            this.handlers[type](ev);
            tab = was;
        }
    }

    send(text) {
        const msg = JSON.parse(text);
        if (msg.t !== 'hello')
            return;
        const token = msg.token || `token-${++guests}`;
        queueMicrotask(() => this.fire('message', { data: JSON.stringify({
            t: 'welcome', token, games: [],
            player: { id: `pid-${token}`, name: token, account: false },
        }) }));
    }

    close() {
        this.readyState = 3;
    }
}
globalThis.WebSocket = FakeSocket;

test('two tabs logged out at once settle on one new guest', async () => {
    const { Connection } = await import('../../web/net.js');
    store.set('chess.token', 'account-token');
    const tabs = [];
    for (const id of [1, 2]) {
        tab = id;
        const c = new Connection(() => {}, () => {});
        tabs.push(c);
        c.connect();
    }
    tab = 0;
    await sleep(20);
    assert.deepEqual(tabs.map((c) => c.memoryToken),
                     ['account-token', 'account-token']);
    const opened = sockets.length;

    // Both get logged_out in the same moment.
    for (const c of tabs) {
        tab = tabs.indexOf(c) + 1;
        c.handle({ t: 'logged_out' });
    }
    tab = 0;
    await sleep(200);
    const tokens = tabs.map((c) => c.memoryToken);
    const reconnects = sockets.length - opened;
    for (const c of tabs) {
        c.stopPing();
        clearTimeout(c.retryTimer);
    }
    assert.equal(tokens[0], tokens[1], 'one identity for both tabs');
    assert.equal(tokens[0], store.get('chess.token'));
    assert.notEqual(tokens[0], 'account-token');
    assert.ok(reconnects <= 2, `${reconnects} reconnections: the tabs ` +
              'followed each other back and forth');
});

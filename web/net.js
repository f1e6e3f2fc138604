// net.js - the WebSocket to the server: identity (hello with the saved
// token), request ids, keep-alive pings and reconnection with backoff.
//
// The connection owns no game state. It reports, through the callbacks given
// to its constructor, every server message and every change of its own
// status ('connecting', 'online', 'offline'); the app resyncs on 'welcome'.
//
// The token is kept in localStorage, which every tab of the browser shares:
// the token there is the browser's identity. A new token (a `welcome`, a
// `registered`) replaces it; after `logged_out` the connection starts over
// as a new guest. A tab follows a change made by another tab (a sign-up,
// login or logout there) by reconnecting with the new token.

const TOKEN_KEY = 'chess.token';
const ACCOUNT_KEY = 'chess.account';   /* the username, when the token is an
                                          account's */
// A ping every 5 s (0.2 messages a second: the server allows 20) and any
// frame resets the watch: a server silent for 8 s (a paused node, a
// network partition, a half-open TCP connection) is left for another
// (through the load balancer) within seconds, not after TCP gives up.
export const PING_EVERY_MS = 5000;
export const SILENT_MS = 8000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 15000;

function savedToken() {
    try {
        return localStorage.getItem(TOKEN_KEY);
    } catch {
        return null;
    }
}

function savedAccount() {
    try {
        return localStorage.getItem(ACCOUNT_KEY);
    } catch {
        return null;
    }
}

// Keeps `token` (null: none), and `account`, the username when it is an
// account's token (else null).
function saveToken(token, account) {
    try {
        if (account)
            localStorage.setItem(ACCOUNT_KEY, account);
        else
            localStorage.removeItem(ACCOUNT_KEY);
        if (token)
            localStorage.setItem(TOKEN_KEY, token);
        else
            localStorage.removeItem(TOKEN_KEY);
    } catch {
        /* storage disabled: the identity lasts as long as the page */
    }
}

const accountOf = (player) => player && player.account ? player.name : null;

export class Connection {
    // onMessage(msg) gets every server message after 'welcome' handling;
    // onStatus(status, detail) gets connection status changes.
    constructor(onMessage, onStatus) {
        this.onMessage = onMessage;
        this.onStatus = onStatus;
        this.ws = null;
        this.authed = false;
        this.nextId = 1;
        this.attempt = 0;
        this.retryTimer = 0;
        this.pingTimer = 0;
        this.silenceTimer = 0;
        this.memoryToken = savedToken();
        this.memoryAccount = savedAccount();
        this.helloToken = null;   /* the token the last hello named */
        this.lapsed = null;       /* username whose token was refused */
        this.wantedName = null;
        this.status = 'offline';
        window.addEventListener('online', () => this.retryNow());
        window.addEventListener('storage', (e) => this.storageChanged(e));
        document.addEventListener('visibilitychange', () => {
            if (document.visibilityState === 'visible')
                this.retryNow();
        });
    }

    url() {
        const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
        return `${scheme}//${location.host}/ws`;
    }

    setStatus(status, detail) {
        this.status = status;
        this.onStatus(status, detail);
    }

    connect() {
        clearTimeout(this.retryTimer);
        this.retryTimer = 0;
        if (this.ws)
            return;
        this.authed = false;
        this.setStatus('connecting', this.attempt);
        let ws;
        try {
            ws = new WebSocket(this.url(), 'chess.v1');
        } catch (e) {
            this.scheduleRetry();
            return;
        }
        this.ws = ws;
        ws.addEventListener('open', () => {
            if (this.ws !== ws)
                return;
            const hello = { t: 'hello' };
            const saved = savedToken();
            if (saved)
                this.memoryToken = saved;
            if (this.memoryToken)
                hello.token = this.memoryToken;
            else if (this.wantedName)
                hello.name = this.wantedName;
            this.helloToken = hello.token || null;
            ws.send(JSON.stringify(hello));
            this.startPing();
        });
        ws.addEventListener('message', (ev) => {
            if (this.ws !== ws)
                return;
            this.armSilence();
            let msg;
            try {
                msg = JSON.parse(ev.data);
            } catch {
                return;
            }
            this.handle(msg);
        });
        ws.addEventListener('close', (ev) => {
            if (this.ws !== ws)
                return;
            this.dropped(ev.code);
        });
        ws.addEventListener('error', () => {
            /* 'close' follows and does the work */
        });
    }

    handle(msg) {
        if (msg.t === 'pong')
            return;
        if (msg.t === 'welcome') {
            this.authed = true;
            this.attempt = 0;
            this.memoryToken = msg.token;
            this.memoryAccount = accountOf(msg.player);
            this.wantedName = null;
            // Only a new token is saved (a new guest, a login): the one the
            // hello named may have been replaced by another tab meanwhile,
            // and two tabs saving their own would follow each other.
            if (msg.token !== this.helloToken)
                saveToken(msg.token, this.memoryAccount);
            this.helloToken = msg.token;
            this.setStatus('online');
        } else if (msg.t === 'registered') {
            // The guest's token stopped working; the account's replaces it.
            this.memoryToken = msg.token;
            this.memoryAccount = accountOf(msg.player);
            saveToken(msg.token, this.memoryAccount);
        } else if (msg.t === 'logged_out') {
            // The connection speaks for nobody now (this page logged out,
            // or the account logged out everywhere): go on as a new guest.
            this.authed = false;
            this.memoryToken = null;
            this.memoryAccount = null;
            saveToken(null, null);
            this.setStatus('connecting');
            this.ws.send(JSON.stringify({ t: 'hello' }));
        } else if (msg.t === 'error' && msg.code === 'bad_token' &&
                   !this.authed) {
            // The saved identity is gone (an account's login lapsed or was
            // logged out elsewhere; another server, a wiped database):
            // start a fresh guest and say so (`lapsed`: which account).
            this.lapsed = savedAccount() || this.memoryAccount;
            this.memoryToken = null;
            this.memoryAccount = null;
            saveToken(null, null);
            this.ws.send(JSON.stringify({ t: 'hello' }));
        }
        this.onMessage(msg);
    }

    dropped(code) {
        this.stopPing();
        this.ws = null;
        this.authed = false;
        this.setStatus('offline', code);
        this.scheduleRetry();
    }

    scheduleRetry() {
        clearTimeout(this.retryTimer);
        const base = Math.min(BACKOFF_MAX_MS,
                              BACKOFF_MIN_MS * 2 ** this.attempt);
        const delay = Math.round(base * (0.75 + Math.random() * 0.5));
        this.attempt += 1;
        this.retryAt = Date.now() + delay;
        this.retryTimer = setTimeout(() => this.connect(), delay);
        this.setStatus('offline', delay);
    }

    // Skips the rest of a backoff wait (the network came back, the tab came
    // to the front, or the person asked).
    retryNow() {
        if (!this.ws && this.retryTimer)
            this.connect();
    }

    // Pings every PING_EVERY_MS, and watches for SILENT_MS without a frame.
    startPing() {
        this.stopPing();
        this.armSilence();
        this.pingTimer = setInterval(() => {
            if (this.ws && this.ws.readyState === WebSocket.OPEN)
                this.ws.send(JSON.stringify({ t: 'ping' }));
        }, PING_EVERY_MS);
    }

    // Any frame from the server: it is alive; SILENT_MS more from now.
    armSilence() {
        clearTimeout(this.silenceTimer);
        this.silenceTimer = setTimeout(() => this.kill(), SILENT_MS);
    }

    stopPing() {
        clearInterval(this.pingTimer);
        clearTimeout(this.silenceTimer);
        this.pingTimer = 0;
        this.silenceTimer = 0;
    }

    // Gives up on a connection that stopped answering and reconnects.
    kill() {
        const ws = this.ws;
        if (!ws)
            return;
        this.dropped(4000);
        try {
            ws.close();
        } catch {
            /* already closing */
        }
    }

    // Sends a message with a fresh id and returns the id, or 0 when there
    // is no authenticated connection (the caller tells the person).
    send(msg) {
        if (!this.ws || !this.authed || this.ws.readyState !== WebSocket.OPEN)
            return 0;
        const id = this.nextId++;
        this.ws.send(JSON.stringify({ ...msg, id }));
        return id;
    }

    // Starts over as a new guest called `name` (the server names a player
    // only when it creates one).
    newIdentity(name) {
        this.memoryToken = null;
        this.memoryAccount = null;
        saveToken(null, null);
        this.wantedName = name || null;
        this.reconnect();
    }

    // Another tab saved a token: this one follows the token saved now (not
    // the event's, which a later change may have replaced) to the same
    // identity. (No token is the middle of a logout there: the new guest's
    // token follows.)
    storageChanged(e) {
        const now = savedToken();
        if (e.key !== TOKEN_KEY || !now || now === this.memoryToken)
            return;
        this.memoryToken = now;
        this.reconnect();
    }

    // Closes the connection and opens a new one at once (hello again).
    reconnect() {
        const ws = this.ws;
        this.ws = null;
        this.authed = false;
        this.stopPing();
        if (ws)
            ws.close(1000);
        this.attempt = 0;
        this.connect();
    }
}

// lib.mjs - shared helpers of the browser tests: a chess-server per test on
// a free port with its own temporary database, Debian's chromium through
// playwright-core, and waits/actions phrased the way a person sees the page.
//
// Environment (set by tests/browser/meson.build):
//   CHESS_SERVER  path of the chess-server binary
//   CHESS_WEB     the web/ directory to serve
//   CHESS_SHOTS   where screenshots go (a build folder)

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join as pathJoin, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');

export const SERVER = process.env.CHESS_SERVER ||
    pathJoin(root, 'build', 'server', 'chess-server');
export const WEB = process.env.CHESS_WEB || pathJoin(root, 'web');
export const SHOTS = process.env.CHESS_SHOTS ||
    pathJoin(root, 'build', 'tests', 'browser', 'screenshots');
export const CHROMIUM = process.env.CHESS_CHROMIUM || '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

function freePort() {
    return new Promise((ok, fail) => {
        const s = net.createServer();
        s.unref();
        s.on('error', fail);
        s.listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => ok(port));
        });
    });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Spawns chess-server with `args` in `dir` and waits until /healthz
// answers. Returns { proc, output(), exited() } or throws with its output.
async function spawnServer(dir, port, args) {
    const proc = spawn(SERVER, args, { cwd: dir,
                                       stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout.on('data', (d) => { output += d; });
    proc.stderr.on('data', (d) => { output += d; });
    let exited = null;
    proc.on('exit', (code, sig) => { exited = { code, sig }; });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline && !exited) {
        try {
            const r = await fetch(`${base}/healthz`);
            if (r.status === 200)
                return { proc, output: () => output, exited: () => exited };
        } catch {
            /* not listening yet */
        }
        await sleep(50);
    }
    proc.kill('SIGKILL');
    throw new Error(`chess-server did not start (${JSON.stringify(exited)}): ${
        SERVER} ${args.join(' ')}\n${output}`);
}

// Starts chess-server on a free port with a fresh database. opts:
// firstMoveS, graceS (server settings), extra (more arguments).
// The result has base (the URL), db (the database's path), stop() and
// restart().
export async function startServer(opts = {}) {
    const dir = mkdtempSync(pathJoin(tmpdir(), 'chess-browser-'));
    let lastError = null;
    for (let attempt = 0; attempt < 3; attempt++) {
        const port = await freePort();
        // Loopback only: a wildcard bind also collides with sockets other
        // tests (the load generator) leave in TIME_WAIT on 127.0.0.x.
        const args = ['--listen', '127.0.0.1', '--port', String(port),
                      '--db', pathJoin(dir, 'chess.db'), '--web', WEB,
                      // every page is a new guest from 127.0.0.1
                      '--guests-per-ip-per-min', '10000000'];
        if (opts.firstMoveS !== undefined)
            args.push('--first-move-s', String(opts.firstMoveS));
        if (opts.graceS !== undefined)
            args.push('--grace-s', String(opts.graceS));
        args.push(...(opts.extra || []));
        let run;
        try {
            run = await spawnServer(dir, port, args);
        } catch (e) {
            lastError = e;
            continue;
        }
        const halt = async () => {
            if (run.exited())
                return;
            run.proc.kill('SIGTERM');
            const until = Date.now() + 5000;
            while (!run.exited() && Date.now() < until)
                await sleep(20);
            if (!run.exited())
                run.proc.kill('SIGKILL');
        };
        return {
            base: `http://127.0.0.1:${port}`,
            port,
            db: pathJoin(dir, 'chess.db'),
            output: () => run.output(),
            async stop() {
                await halt();
                rmSync(dir, { recursive: true, force: true });
            },
            // A planned shutdown, then the same server again on the same
            // port and database; `between` (optional, async) runs while it
            // is down.
            async restart(between) {
                await halt();
                if (between)
                    await between();
                run = await spawnServer(dir, port, args);
            },
        };
    }
    rmSync(dir, { recursive: true, force: true });
    throw lastError;
}

export async function launchBrowser() {
    const args = ['--disable-background-networking',
                  '--disable-component-update', '--disable-sync',
                  '--no-first-run', '--disable-gpu', '--disable-quic',
                  '--disable-dev-shm-usage'];
    if (process.getuid && process.getuid() === 0)
        args.push('--no-sandbox');
    return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}

// Closes a browser from launchBrowser, giving up after 15 s: a Chromium
// that does not answer must not hold the whole suite (playwright kills the
// browsers it launched when the test process exits).
export async function closeBrowser(browser) {
    let timer;
    const late = new Promise((resolve) => {
        timer = setTimeout(() => {
            console.error('# closeBrowser: no answer in 15 s, left behind');
            resolve();
        }, 15000);
    });
    await Promise.race([browser.close(), late]);
    clearTimeout(timer);
}

// Opens the client in a new browser context (its own localStorage: its own
// guest), or in a new tab of context opts.ctx (the same storage: the same
// identity). Returns { ctx, page, problems } where problems collects page
// errors and console errors (a CSP violation is a console error).
export async function openPlayer(browser, url, opts = {}) {
    const phone = opts.phone;
    const ctx = opts.ctx || await browser.newContext({
        viewport: phone ? PHONE : DESKTOP,
        deviceScaleFactor: phone ? 2 : 1,
        isMobile: !!phone,
        hasTouch: !!phone,
        acceptDownloads: true,
    });
    const page = await ctx.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
        // A refused or cut WebSocket is logged by the browser itself; the
        // reconnection test causes those on purpose.
        if (m.type() === 'error' &&
            !/^WebSocket connection to .* failed/.test(m.text()))
            problems.push(`console: ${m.text()}`);
    });
    if (opts.beforeGoto)
        await opts.beforeGoto(page);
    const response = await page.goto(url);
    await waitText(page, '#conn-text', /^Online$/);
    return { ctx, page, problems, response };
}

// A chess-server (startServer's options) and a browser for the test `t`,
// both stopped after it. Returns { server, browser }.
export async function serverAndBrowser(t, serverOpts) {
    const server = await startServer(serverOpts);
    let browser = null;
    t.after(async () => {
        if (browser)
            await closeBrowser(browser);
        await server.stop();
    });
    browser = await launchBrowser();
    return { server, browser };
}

// The set-up most tests share: a chess-server (opts.server: startServer's
// options), a browser, and players A and B on the lobby page (opts.a,
// opts.b: openPlayer's options; opts.b === null: A alone). The browser and
// the server are stopped after the test `t`. Returns
// { server, browser, a, b }.
export async function twoPlayers(t, opts = {}) {
    const { server, browser } = await serverAndBrowser(t, opts.server);
    const a = await openPlayer(browser, `${server.base}/`, opts.a);
    const b = opts.b === null ? null
        : await openPlayer(browser, `${server.base}/`, opts.b);
    return { server, browser, a, b };
}

export function sq(name) {
    const i = (name.charCodeAt(1) - 49) * 8 + (name.charCodeAt(0) - 97);
    return `#board [data-sq="${i}"]`;
}

// Waits until the element matching `selector` is visible and its text
// matches `re`. Fails with what the page showed instead.
export async function waitText(page, selector, re, timeout = 15000) {
    try {
        await page.waitForFunction(([sel, src, flags]) => {
            const el = document.querySelector(sel);
            if (!el || el.closest('[hidden]'))
                return false;
            return new RegExp(src, flags).test(el.textContent);
        }, [selector, re.source, re.flags], { timeout, polling: 50 });
    } catch (e) {
        const seen = await page.evaluate((sel) => {
            const el = document.querySelector(sel);
            return el ? `${el.closest('[hidden]') ? '(hidden) ' : ''}${
                JSON.stringify(el.textContent)}` : '(no element)';
        }, selector).catch(() => '(page gone)');
        throw new Error(`${selector} never matched ${re}: it shows ${seen}`);
    }
}

export async function text(page, selector) {
    return (await page.locator(selector).first().textContent()).trim();
}

// The player's name as the page shows it (after the server's welcome).
export async function myName(page) {
    await waitText(page, '#me', /\S/);
    return text(page, '#me');
}

export async function moveCount(page) {
    return page.locator('#moves button.move').count();
}

export async function sanList(page) {
    return page.locator('#moves button.move').allTextContents();
}

// Waits until the page offers a move from `from` (its own turn, the move in
// the server's legal list; not a premove).
async function waitMovable(page, from) {
    await page.locator(`#game.my-turn ${sq(from)}.movable`)
        .waitFor({ timeout: 15000 });
}

// Queues a premove (the opponent's turn) with two clicks and waits until
// the board shows it.
export async function premove(page, uci) {
    await page.locator(`#game:not(.my-turn) ${sq(uci.slice(0, 2))}.movable`)
        .waitFor({ timeout: 15000 });
    await page.click(sq(uci.slice(0, 2)));
    await page.click(sq(uci.slice(2, 4)));
    await page.locator(`${sq(uci.slice(2, 4))}.premove`).waitFor();
}

// Before the page loads (openPlayer's beforeGoto): logs every message its
// WebSockets receive and send, with performance.now() when the socket got
// it (a listener added before the client's own) or the client sent it, in
// window.wsLog as { dir: 'in'|'out', at, msg }.
export async function logWebSocket(page) {
    await page.addInitScript(() => {
        const log = [];
        window.wsLog = log;
        // `during`: the index of the incoming message whose event was
        // being handled when a message went out (null: another task).
        // This listener runs first; a timeout of 0 ends the event's task.
        let during = null;
        const Native = window.WebSocket;
        const send = Native.prototype.send;
        Native.prototype.send = function (data) {
            const at = performance.now();
            try {
                log.push({ dir: 'out', at, during, msg: JSON.parse(data) });
            } catch {
                /* not JSON */
            }
            return send.call(this, data);
        };
        window.WebSocket = class extends Native {
            constructor(...args) {
                super(...args);
                this.addEventListener('message', (ev) => {
                    const at = performance.now();
                    during = log.length;
                    setTimeout(() => { during = null; }, 0);
                    try {
                        log.push({ dir: 'in', at, msg: JSON.parse(ev.data) });
                    } catch {
                        /* not JSON */
                    }
                });
            }
        };
    });
}

// The page's WebSocket log (logWebSocket), messages of type `t` only.
export async function wsMessages(page, dir, t) {
    // (each with its index in the whole log, as `during` counts)
    return page.evaluate(([d, type]) => window.wsLog
        .map((e, index) => ({ ...e, index }))
        .filter((e) => e.dir === d && e.msg.t === type), [dir, t]);
}

async function waitPlayed(page, before) {
    await page.waitForFunction((n) =>
        document.querySelectorAll('#moves button.move').length > n,
    before, { timeout: 15000, polling: 50 });
}

// Plays a UCI move with two clicks (and a click in the promotion picker).
export async function clickMove(page, uci) {
    await waitMovable(page, uci.slice(0, 2));
    const before = await moveCount(page);
    await page.click(sq(uci.slice(0, 2)));
    await page.click(sq(uci.slice(2, 4)));
    if (uci.length > 4)
        await choosePromotion(page, uci[4]);
    await waitPlayed(page, before);
}

// Plays a UCI move by dragging the piece with the mouse.
export async function dragMove(page, uci) {
    await waitMovable(page, uci.slice(0, 2));
    const before = await moveCount(page);
    const a = await page.locator(sq(uci.slice(0, 2))).boundingBox();
    const b = await page.locator(sq(uci.slice(2, 4))).boundingBox();
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(a.x + a.width / 2 + 8, a.y + a.height / 2 + 8,
                          { steps: 2 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2,
                          { steps: 8 });
    await page.mouse.up();
    if (uci.length > 4)
        await choosePromotion(page, uci[4]);
    await waitPlayed(page, before);
}

const PROMO = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight' };

export async function choosePromotion(page, letter) {
    await page.click(`.promo button[aria-label="Promote to ${
        PROMO[letter]}"]`);
}

// The piece a square shows, as its text alternative ('white knight'), or
// 'empty'.
export async function pieceOn(page, name) {
    const label = await page.getAttribute(sq(name), 'aria-label');
    return label.split(', ')[1];
}

export async function waitPiece(page, name, piece, timeout = 15000) {
    const i = (name.charCodeAt(1) - 49) * 8 + (name.charCodeAt(0) - 97);
    try {
        await page.waitForFunction(([idx, want]) => {
            const el = document.querySelector(`#board [data-sq="${idx}"]`);
            return el && el.getAttribute('aria-label').split(', ')[1] === want;
        }, [i, piece], { timeout, polling: 50 });
    } catch {
        throw new Error(`${name} never showed ${piece}: it shows ${
            await pieceOn(page, name)}`);
    }
}

export const PASSWORD = 'correct horse battery';

// Makes the page someone else through a WebSocket of its own (the client's
// forms are not the tests' subject), stores the new token where the
// client keeps it and reloads the page: `hello` from the page's token,
// then `register` as account `username` (register), or a `hello` without
// a token: a new guest named `name` (guestNamed). Returns the player's
// PID.
async function becomePlayer(page, { username, guest }) {
    const res = await page.evaluate(([u, pw, g]) => new Promise((ok, fail) => {
        const ws = new WebSocket(`ws://${location.host}/ws`, 'chess.v1');
        ws.onopen = () => ws.send(JSON.stringify(g
            ? { t: 'hello', name: g }
            : { t: 'hello', token: localStorage.getItem('chess.token') }));
        ws.onmessage = (ev) => {
            const m = JSON.parse(ev.data);
            if (m.t === 'welcome' && g)
                ok({ id: m.player.id, token: m.token });
            else if (m.t === 'welcome')
                ws.send(JSON.stringify({ t: 'register', username: u,
                                         password: pw }));
            else if (m.t === 'registered')
                ok({ id: m.player.id, token: m.token });
            else if (m.t === 'error')
                fail(new Error(`${m.code}: ${m.msg}`));
        };
        ws.onerror = () => fail(new Error('websocket error'));
    }).then((r) => {
        localStorage.setItem('chess.token', r.token);
        return r;
    }), [username || null, PASSWORD, guest || null]);
    await page.reload();
    await waitText(page, '#conn-text', /^Online$/);
    await waitText(page, '#me', new RegExp(`^${username || guest}$`));
    return res.id;
}

export function register(page, username) {
    return becomePlayer(page, { username });
}

export function guestNamed(page, name) {
    return becomePlayer(page, { guest: name });
}

// Chooses a colour, then clicks a preset time control in the lobby form:
// that seeks an opponent at once (the custom one only opens its fields).
export async function chooseLobby(page, preset, color) {
    await page.click(`label[for="col-${color}"]`);
    await page.click(`label[for="tc-${preset}"]`);
}

// Creates an invitation from the lobby ("Invite a friend", a colour, the
// FEN, then a click on the time control; the custom one, set beforehand,
// with the button) and returns its link.
export async function invite(page, { preset = '10-5', color = 'white',
                                     fen = null } = {}) {
    if (await page.getAttribute('#invite-btn', 'aria-pressed') !== 'true')
        await page.click('#invite-btn');
    await page.click(`label[for="col-${color}"]`);
    if (fen) {
        await page.click('.fen-box summary');
        await page.fill('#fen', fen);
    }
    await page.click(`label[for="tc-${preset}"]`);
    if (preset === 'custom')
        await page.click('#seek-btn');
    await page.waitForURL(/\/g\/[A-Za-z0-9_-]+$/);
    await waitText(page, '#status', /Waiting for your opponent to join/);
    const link = await page.inputValue('#invite-link');
    return link;
}

// Opens an invitation link in `player` and joins it; both pages then show
// the started game.
export async function join(page, link) {
    await page.goto(link);
    await waitText(page, '#conn-text', /^Online$/);
    await waitText(page, '#join-title', /invites you to play/);
    await page.click('#join-btn');
    await waitText(page, '#status', /Your move|Waiting for your opponent to move/);
}

// Routes the page's WebSockets through the test so that it can cut them:
// `drop()` closes the live socket on both ends and refuses new ones until
// `restore()`.
export async function cuttable(page) {
    const state = { blocked: false, live: [], refused: 0 };
    await page.routeWebSocket(/\/ws$/, (ws) => {
        if (state.blocked) {
            state.refused += 1;
            ws.close({ code: 4001, reason: 'test: network down' });
            return;
        }
        const server = ws.connectToServer();
        state.live.push({ ws, server });
    });
    return {
        state,
        async drop() {
            state.blocked = true;
            for (const { ws, server } of state.live.splice(0)) {
                await server.close({ code: 4002, reason: 'test: cut' });
                await ws.close({ code: 4002, reason: 'test: cut' });
            }
        },
        restore() {
            state.blocked = false;
        },
    };
}

// Before the page loads (openPlayer's beforeGoto): every WebSocket of the
// page goes through the test, which may make one silent (mute: nothing
// passes either way, and nothing closes, as with a paused server or a
// network partition) or drop the page's messages `drop(msg)` picks.
// Returns its state: opened (sockets so far), muted (the index of the
// silent one, or -1), drop, and sent (every message the page sent).
export async function mutable(page) {
    const state = { opened: 0, muted: -1, drop: null, sent: [] };
    await page.routeWebSocket(/\/ws$/, (ws) => {
        const index = state.opened++;
        const server = ws.connectToServer();
        ws.onMessage((text) => {
            let msg = null;
            try {
                msg = JSON.parse(text);
            } catch {
                /* not JSON */
            }
            if (msg)
                state.sent.push(msg);
            if (state.muted === index || (msg && state.drop &&
                                          state.drop(msg)))
                return;
            server.send(text);
        });
        server.onMessage((text) => {
            if (state.muted !== index)
                ws.send(text);
        });
    });
    return state;
}

// Answers the confirmation dialog.
export async function confirm(page, yes = true) {
    await page.locator('#confirm[open]').waitFor();
    await page.click(yes ? '#confirm-yes' : '#confirm-no');
}

export async function screenshot(page, name) {
    mkdirSync(SHOTS, { recursive: true });
    const path = pathJoin(SHOTS, name);
    await sleep(400);     // let a piece finish sliding
    await page.screenshot({ path, fullPage: false });
    return path;
}

// Fails unless every piece on the board is drawn: each one's <use> names a
// symbol of the page's sprite that has a drawing, and it takes room.
export async function assertPiecesDrawn(page) {
    await page.waitForFunction(() =>
        document.querySelectorAll('#board svg.piece').length > 0);
    const broken = await page.evaluate(() =>
        [...document.querySelectorAll('#board svg.piece')].filter((p) => {
            const href = p.querySelector('use')?.getAttribute('href') || '';
            const sym = href.startsWith('#') &&
                document.getElementById(href.slice(1));
            const box = p.getBoundingClientRect();
            return !sym || sym.tagName !== 'symbol' ||
                !sym.querySelector('path') || box.width < 8;
        }).map((p) => p.querySelector('use')?.getAttribute('href')));
    if (broken.length)
        throw new Error(`pieces not drawn: ${broken.join(' ')}`);
}

// Fails when the page reported errors (a CSP violation among them).
export function assertClean(t, ...players) {
    for (const p of players) {
        if (p.problems.length)
            throw new Error(`the page reported:\n${p.problems.join('\n')}`);
    }
}

// Chromium DevTools' "Fast 3G" preset (front_end/core/sdk/NetworkManager.ts,
// Fast3GConditions): 1.6 Mbit/s down and 750 kbit/s up at 90%, 150 ms
// round trips times 3.75; for Network.emulateNetworkConditions.
export const FAST_3G = {
    offline: false,
    downloadThroughput: 1.6 * 1000 * 1000 / 8 * 0.9,   // 180,000 B/s
    uploadThroughput: 750 * 1000 / 8 * 0.9,            // 84,375 B/s
    latency: 150 * 3.75,                               // 562.5 ms
};

// Watches what `page` fetches over HTTP through the DevTools protocol.
// requests() lists { url, path, status, bytes, encoding, type }: bytes is
// what arrived for it (headers and body, as sent on the wire: compressed
// when it was), encoding its Content-Encoding. reset() forgets them;
// throttle(conditions) applies Network.emulateNetworkConditions.
export async function netMeter(page) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const reqs = new Map();
    cdp.on('Network.requestWillBeSent', (e) => {
        if (!/^https?:/.test(e.request.url))
            return;
        reqs.set(e.requestId, { url: e.request.url,
                                path: new URL(e.request.url).pathname,
                                status: 0, bytes: 0, encoding: '',
                                type: e.type || '', done: false });
    });
    cdp.on('Network.responseReceived', (e) => {
        const r = reqs.get(e.requestId);
        if (!r)
            return;
        r.status = e.response.status;
        for (const [k, v] of Object.entries(e.response.headers))
            if (k.toLowerCase() === 'content-encoding')
                r.encoding = v;
    });
    cdp.on('Network.loadingFinished', (e) => {
        const r = reqs.get(e.requestId);
        if (r) {
            r.bytes = e.encodedDataLength;
            r.done = true;
        }
    });
    cdp.on('Network.loadingFailed', (e) => {
        const r = reqs.get(e.requestId);
        if (r)
            r.done = true;
    });
    return {
        requests: () => [...reqs.values()],
        bytes: () => [...reqs.values()].reduce((n, r) => n + r.bytes, 0),
        reset: () => reqs.clear(),
        // waits until every request seen has finished
        async settled() {
            const until = Date.now() + 30000;
            while ([...reqs.values()].some((r) => !r.done) &&
                   Date.now() < until)
                await sleep(20);
        },
        throttle: (conditions) =>
            cdp.send('Network.emulateNetworkConditions', conditions),
    };
}

// Runs axe-core (the devDependency) in the page and returns its
// violations of impact `serious` or `critical` as readable lines, with
// the elements concerned.
export async function axeSerious(page) {
    const source = readFileSync(pathJoin(here, 'node_modules', 'axe-core',
                                         'axe.min.js'), 'utf8');
    // (evaluated through the DevTools protocol: the page's CSP refuses an
    // inline <script>, which page.addScriptTag would add)
    if (!await page.evaluate(() => !!window.axe))
        await page.evaluate(source);
    const violations = await page.evaluate(async () => {
        // the colours as they stay: a toast fading in (0.18 s) is checked
        // once it is opaque (its contrast mid-way is not what one reads);
        // endless animations (a spinner) are not waited for
        const finite = document.getAnimations().filter((a) =>
            a.effect && a.effect.getComputedTiming().endTime !== Infinity);
        await Promise.race([
            Promise.all(finite.map((a) => a.finished.catch(() => null))),
            new Promise((ok) => setTimeout(ok, 2000)),
        ]);
        const r = await window.axe.run(document, {
            resultTypes: ['violations'],
        });
        return r.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(' ')),
        }));
    });
    return violations.filter((v) => v.impact === 'serious' ||
                                    v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.join(', ')}`);
}

export { sleep };

// pagefigures.mjs - the client's page figures, measured by hand (not a
// test): what a first and a repeat visit fetch (requests, and bytes as they
// arrive: headers and compressed bodies), the time from following a game
// link to the game's real position on the board under Chromium DevTools'
// "Fast 3G" throttling (lib.mjs FAST_3G), first visit and repeat visit,
// and axe-core's findings at desktop (1280x800) and phone (390x844) sizes
// on the lobby and a game page. Prints Markdown for docs/performance.md.
//
//   cd tests/browser && npm ci && \
//   CHESS_SERVER=../../build/server/chess-server node pagefigures.mjs
//
// Environment as for the tests (lib.mjs): CHESS_SERVER, CHESS_WEB.

import {
    DESKTOP, FAST_3G, PHONE, axeSerious, clickMove, invite, join,
    launchBrowser, netMeter, openPlayer, startServer, waitText,
} from './lib.mjs';

const MOVES = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'g8f6', 'd2d3',
               'f8c5'];
// the square and piece that show the position after MOVES (not the start)
const REAL = { sq: 'c5', piece: 'black bishop' };

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const sum = (reqs) => reqs.reduce((n, r) => n + r.bytes, 0);

// Opens url in a new page of context ctx (a new context when none) with a
// meter watching from the start, throttled by `conditions` when given.
// Returns { page, meter, ms }: ms from the start of the navigation until
// the board shows REAL (when waitReal), else until the page is online.
async function visit(browser, url, { ctx, conditions, waitReal, phone }) {
    let meter = null;
    const p = await openPlayer(browser, url, { ctx, phone,
        beforeGoto: async (page) => {
            meter = await netMeter(page);
            if (conditions)
                await meter.throttle(conditions);
        } });
    let ms = null;
    if (waitReal) {
        const idx = (REAL.sq.charCodeAt(1) - 49) * 8 +
            (REAL.sq.charCodeAt(0) - 97);
        ms = await (await p.page.waitForFunction(([i, want]) => {
            const el = document.querySelector(`#board [data-sq="${i}"]`);
            return el && !el.closest('[hidden]') &&
                el.getAttribute('aria-label').split(', ')[1] === want &&
                performance.now();
        }, [idx, REAL.piece], { polling: 'raf', timeout: 60000 }))
            .jsonValue();
    }
    await meter.settled();
    return { ...p, meter, ms };
}

async function axeAll(page) {
    // every violation, by impact (axeSerious keeps the serious ones)
    await axeSerious(page);
    return page.evaluate(async () => {
        const r = await window.axe.run(document, {
            resultTypes: ['violations'] });
        return r.violations.map((v) => `${v.impact} ${v.id} (${
            v.nodes.length})`);
    });
}

const server = await startServer();
const browser = await launchBrowser();
const out = [];
try {
    // a game with some moves, played by two players
    const a = await openPlayer(browser, `${server.base}/`);
    const b = await openPlayer(browser, `${server.base}/`);
    const link = await invite(a.page);
    await join(b.page, link);
    for (let i = 0; i < MOVES.length; i++)
        await clickMove((i % 2 ? b : a).page, MOVES[i]);
    await waitText(a.page, '#moves .move.current', /^Bc5$/);

    // first and repeat visit of the lobby, unthrottled
    const lobby = await visit(browser, `${server.base}/`, {});
    const first = lobby.meter.requests();
    lobby.meter.reset();
    await lobby.page.goto(`${server.base}/`);
    await waitText(lobby.page, '#conn-text', /^Online$/);
    await lobby.meter.settled();
    const repeat = lobby.meter.requests();
    out.push('| visit | requests | bytes |', '| --- | --- | --- |',
             `| lobby, first visit | ${first.length} | ${kb(sum(first))} |`,
             `| lobby, repeat visit | ${repeat.length} | ${
                 kb(sum(repeat))} |`);

    // the game link under Fast 3G: first visit (empty cache), repeat
    const g1 = await visit(browser, link, { conditions: FAST_3G,
                                            waitReal: true });
    const g1reqs = g1.meter.requests();
    const g2 = await visit(browser, link, { ctx: g1.ctx,
                                            conditions: FAST_3G,
                                            waitReal: true });
    const g2reqs = g2.meter.requests();
    out.push(`| game link, first visit | ${g1reqs.length} | ${
        kb(sum(g1reqs))} |`, `| game link, repeat visit | ${
        g2reqs.length} | ${kb(sum(g2reqs))} |`, '',
    '| Fast 3G (562.5 ms, 1.44 Mbit/s down) | time to the real position |',
    '| --- | --- |',
    `| game link, first visit | ${Math.round(g1.ms)} ms |`,
    `| game link, repeat visit | ${Math.round(g2.ms)} ms |`, '');
    out.push('| page | requests of the first visit, with bytes |',
             '| --- | --- |',
             `| lobby | ${first.map((r) => `${r.path} ${r.bytes}`)
                 .join(', ')} |`, '');

    // axe at both sizes
    out.push('| axe-core | lobby | game page |', '| --- | --- | --- |');
    for (const phone of [false, true]) {
        const p = await openPlayer(browser, `${server.base}/`, { phone });
        const lob = await axeAll(p.page);
        await p.page.goto(link);
        await waitText(p.page, '#conn-text', /^Online$/);
        await waitText(p.page, '#moves .move.current', /^Bc5$/);
        const game = await axeAll(p.page);
        const size = phone ? PHONE : DESKTOP;
        out.push(`| ${size.width}x${size.height} | ${
            lob.join(', ') || 'no violation'} | ${
            game.join(', ') || 'no violation'} |`);
    }
    console.log(out.join('\n'));
} finally {
    await browser.close();
    await server.stop();
}

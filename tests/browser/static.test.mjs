// The client as files: it loads gzip-compressed in few requests (the
// pieces and the logo come inside index.html, the favicon once), a repeat
// visit costs under 10 KB (every file revalidated by its ETag: 304s), on a
// phone the moves are in view with the board and a phone held sideways
// gives the board 80% of the height, the logo link has a name at every
// width, coordinate labels keep 4.5:1 under the last move's highlight in
// every theme and board colour, and axe finds nothing serious at desktop
// and phone sizes. Screenshots at 1280x800, 390x844 and 844x390.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, assertPiecesDrawn, axeSerious, clickMove, invite, join,
    netMeter, openPlayer, screenshot, serverAndBrowser, waitText,
} from './lib.mjs';

// Opens url in a new context with a netMeter watching from the start.
async function metered(browser, url, opts = {}) {
    let meter = null;
    const p = await openPlayer(browser, url, { ...opts,
        beforeGoto: async (page) => { meter = await netMeter(page); } });
    await meter.settled();
    return { ...p, meter };
}

test('few requests, gzip-compressed, and a small repeat visit',
     { timeout: 120000 }, async (t) => {
    const { server, browser } = await serverAndBrowser(t);
    const p = await metered(browser, `${server.base}/`);
    const first = p.meter.requests();
    const line = first.map((r) => `${r.path} ${r.status} ${r.bytes}`)
        .join(', ');
    // the page, its style, its modules and the favicon: nothing else
    for (const r of first) {
        assert.equal(r.status, 200, line);
        assert.match(r.path, /^\/([a-z]+\.(js|css|svg))?$/, line);
        if (/(\.js|\.css|\/)$/.test(r.path))
            assert.equal(r.encoding, 'gzip', `${r.path}: ${line}`);
    }
    // the favicon once (the icon link; the logo is a symbol in the page)
    assert.ok(first.filter((r) => r.path === '/favicon.svg').length <= 1,
              line);
    assert.equal(await p.page.locator('[src="/favicon.svg"], ' +
                                      '[href="/favicon.svg"]').count(), 1);

    // a game's page needs no more files than its chat's module, loaded
    // with the first game (the lobby's visits do not fetch it): the
    // pieces are in index.html (the browser may ask for the favicon of
    // the new address again)
    p.meter.reset();
    await invite(p.page);
    await assertPiecesDrawn(p.page);
    await p.meter.settled();
    assert.deepEqual(p.meter.requests().map((r) => r.path)
                         .filter((path) => path !== '/favicon.svg'),
                     ['/chat.js']);

    // a repeat visit: every file revalidated, none sent again (a 304 is
    // its headers alone, 436 bytes; DevTools shows a 304 of the page or
    // the favicon as the cached 200 it revalidated, hence the check by
    // size)
    p.meter.reset();
    await p.page.goto(`${server.base}/`);
    await waitText(p.page, '#conn-text', /^Online$/);
    await p.meter.settled();
    const repeat = p.meter.requests();
    const seen = repeat.map((r) => `${r.path} ${r.status} ${r.bytes}`)
        .join(', ');
    const paths = repeat.map((r) => r.path);
    assert.ok(paths.includes('/') && paths.includes('/app.js') &&
              paths.includes('/style.css'), seen);
    for (const r of repeat) {
        assert.ok(r.status === 304 || r.status === 200, seen);
        assert.ok(r.bytes > 0 && r.bytes < 1024, seen);
    }
    // (each module of the page costs its 304, about 436 bytes: 25 files
    // since mygames.js; the modules of a game's chat, analysis, API tokens
    // and tournaments load when first needed)
    const bytes = p.meter.bytes();
    assert.ok(bytes < 11 * 1024, `repeat visit: ${bytes} bytes: ${seen}`);
    console.log(`# first visit: ${first.length} requests, ${
        first.reduce((n, r) => n + r.bytes, 0)} bytes; repeat: ${
        repeat.length} requests, ${bytes} bytes`);
    assertClean(t, p);
});

// The box of the element matching sel, and whether it lies inside the
// viewport.
async function box(page, sel) {
    return page.evaluate((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                 height: r.height, width: r.width,
                 inView: r.top >= 0 && r.left >= 0 &&
                     r.bottom <= window.innerHeight &&
                     r.right <= window.innerWidth };
    }, sel);
}

test('phone: the moves in view with the board, the board 80% of a ' +
     'sideways phone, the logo named', { timeout: 120000 }, async (t) => {
    const { server, browser } = await serverAndBrowser(t);
    const a = await openPlayer(browser, `${server.base}/`);
    const b = await openPlayer(browser, `${server.base}/`, { phone: true });
    // the logo link's name, where only the logo shows
    assert.equal(await b.page.getByRole('link', { name: 'Chess',
                                                  exact: true }).count(), 1);
    const link = await invite(a.page);
    await join(b.page, link);
    for (const [page, uci] of [[a, 'e2e4'], [b, 'e7e5'], [a, 'g1f3'],
                               [b, 'b8c6'], [a, 'f1c4'], [b, 'g8f6'],
                               [a, 'd2d3'], [b, 'f8c5']])
        await clickMove(page.page, uci);
    await waitText(b.page, '#moves .move.current', /^Bc5$/);
    await screenshot(a.page, 'static-desktop.png');
    // desktop: the six buttons under the moves all inside their box
    const navBox = await box(a.page, '.moves-box');
    for (const sel of ['#nav-first', '#nav-last', '#flip-btn',
                       '#sound-toggle']) {
        const btn = await box(a.page, sel);
        assert.ok(btn.left >= navBox.left - 1 && btn.right <= navBox.right + 1,
                  `${sel} inside the moves box: ${JSON.stringify([btn, navBox])}`);
    }
    // phone: nothing in the top bar overlaps anything else in it
    const bar = await b.page.evaluate(() => [
        ...document.querySelectorAll(
            '.topbar .brand, .topbar .topnav a, .topbar .me, ' +
            '.topbar .me-kind, .topbar .menu-btn, .topbar .settings-btn, ' +
            '.topbar .conn')]
        .filter((el) => el.getClientRects().length && el.offsetWidth)
        .map((el) => {
            const r = el.getBoundingClientRect();
            return { el: el.className || el.id, left: r.left, right: r.right };
        }));
    for (let i = 0; i < bar.length; i++)
        for (let j = i + 1; j < bar.length; j++)
            assert.ok(bar[i].right <= bar[j].left + 1 ||
                      bar[j].right <= bar[i].left + 1,
                      `top bar overlap: ${JSON.stringify([bar[i], bar[j]])}`);

    // portrait: board, clocks and the moves (the current one too) in view
    // without scrolling
    const page = b.page;
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'static-phone.png');
    for (const sel of ['.board-wrap', '#moves', '#bar-top .clock',
                       '#bar-bottom .clock', '#nav-prev'])
        assert.ok((await box(page, sel)).inView, `${sel} in view`);
    const strip = await box(page, '#moves');
    const cur = await box(page, '#moves .move.current');
    assert.ok(cur.left >= strip.left - 1 && cur.right <= strip.right + 1 &&
              cur.top >= strip.top - 1 && cur.bottom <= strip.bottom + 1,
              `current move inside the strip: ${JSON.stringify([cur, strip])}`);
    // browsing back from the strip
    await page.click('#moves .move[data-ply="2"]');
    await waitText(page, '#moves .move.current', /^e5$/);
    await page.click('#nav-last');
    await waitText(page, '#moves .move.current', /^Bc5$/);

    // sideways: the board at least 80% of the height, all of it in view
    // with the clocks and the moves
    await page.setViewportSize({ width: 844, height: 390 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'static-landscape.png');
    const board = await box(page, '.board-wrap');
    assert.ok(board.height >= 0.8 * 390, `board ${board.height} px high`);
    for (const sel of ['.board-wrap', '#moves', '#bar-top .clock',
                       '#bar-bottom .clock', '#status'])
        assert.ok((await box(page, sel)).inView, `${sel} in view sideways`);
    assert.equal(await page.evaluate(() =>
        document.documentElement.scrollHeight <= window.innerHeight), true,
                 'no page scroll sideways');
    assertClean(t, a, b);
});

// WCAG's contrast ratio of the coordinate labels on the squares that carry
// them, each under the highlight `mark` (a class board.js sets: last,
// selected, premove), as the page computes the colours.
async function labelContrasts(page, mark) {
    return page.evaluate((mark) => {
        const rgba = (s) => {
            const m = s.match(/rgba?\(([^)]+)\)/);
            const v = m[1].split(',').map(Number);
            return { r: v[0], g: v[1], b: v[2], a: v.length > 3 ? v[3] : 1 };
        };
        const lum = (c) => {
            const f = (x) => {
                x /= 255;
                return x <= 0.03928 ? x / 12.92
                    : ((x + 0.055) / 1.055) ** 2.4;
            };
            return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
        };
        const out = [];
        for (const cell of document.querySelectorAll('#board .sq')) {
            const labels = cell.querySelectorAll('.coord');
            if (!labels.length)
                continue;
            const was = cell.className;
            cell.className = `${cell.dataset.base} ${mark}`;
            const cs = getComputedStyle(cell);
            const base = rgba(cs.backgroundColor);
            const over = rgba(cs.backgroundImage);
            const bg = {
                r: base.r * (1 - over.a) + over.r * over.a,
                g: base.g * (1 - over.a) + over.g * over.a,
                b: base.b * (1 - over.a) + over.b * over.a,
            };
            for (const l of labels) {
                const fg = rgba(getComputedStyle(l).color);
                const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
                out.push({ sq: cell.getAttribute('aria-label').split(',')[0],
                           ratio: (hi + 0.05) / (lo + 0.05) });
            }
            cell.className = was;
        }
        return out;
    }, mark);
}

test('coordinate labels at 4.5:1 under the last move, the selected square ' +
     'and a premove in every theme and board colour', { timeout: 120000 }, async (t) => {
    const { server, browser } = await serverAndBrowser(t);
    const a = await openPlayer(browser, `${server.base}/`);
    await invite(a.page);
    for (const theme of ['dark', 'light']) {
        for (const board of ['brown', 'blue', 'green', 'grey', 'purple',
                             'olive', 'marble']) {
            await a.page.click('#settings-btn');
            await a.page.check(`#settings-form input[name="theme"][value="${
                theme}"]`);
            await a.page.check(`#settings-form input[name="board"][value="${
                board}"]`);
            await a.page.click('#settings-close');
            await a.page.waitForFunction(([th, bo]) =>
                document.documentElement.dataset.theme === th &&
                document.documentElement.dataset.board === bo,
            [theme, board]);
            for (const mark of ['last', 'selected', 'premove']) {
                const found = await labelContrasts(a.page, mark);
                assert.equal(found.length, 16);
                for (const f of found)
                    assert.ok(f.ratio >= 4.5, `${theme} ${board} ${mark} ${
                        f.sq}: ${f.ratio.toFixed(2)}:1`);
            }
        }
    }
    assertClean(t, a);
});

test('axe: no serious or critical violation on the lobby and the game ' +
     'page, desktop and phone', { timeout: 120000 }, async (t) => {
    const { server, browser } = await serverAndBrowser(t);
    for (const phone of [false, true]) {
        const p = await openPlayer(browser, `${server.base}/`, { phone });
        const size = phone ? 'phone' : 'desktop';
        assert.deepEqual(await axeSerious(p.page), [], `lobby, ${size}`);
        await invite(p.page);
        assert.deepEqual(await axeSerious(p.page), [], `game, ${size}`);
        // the game page has a main heading (axe's moderate
        // page-has-heading-one): for screen readers only
        assert.equal(await p.page.getByRole('heading', { level: 1 })
            .count(), 1, `game, ${size}`);
        assertClean(t, p);
    }
});

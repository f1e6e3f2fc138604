// Sounds (web/sound.js): each event of a game plays its named sound through
// a real AudioContext, the low-time warning once per turn, and the mute
// switch silences them. A spy wraps window.AudioContext before the page's
// scripts run: it counts the oscillators started and records the names of
// the sounds (the page's `chess-sound` events).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, confirm, invite, join, twoPlayers, waitText,
} from './lib.mjs';

async function spy(page) {
    await page.addInitScript(() => {
        window.__sounds = [];
        window.__tones = 0;
        window.__contexts = 0;
        const Real = window.AudioContext;
        window.AudioContext = class extends Real {
            constructor(...args) {
                super(...args);
                window.__contexts += 1;
            }

            createOscillator() {
                const osc = super.createOscillator();
                const start = osc.start.bind(osc);
                osc.start = (...a) => {
                    window.__tones += 1;
                    return start(...a);
                };
                return osc;
            }
        };
        window.addEventListener('chess-sound',
                                (e) => window.__sounds.push(e.detail));
    });
}

const heard = (page) => page.evaluate(() => ({
    sounds: window.__sounds.slice(), tones: window.__tones,
    contexts: window.__contexts,
}));

// Waits until the page has played `n` sounds; returns what it heard.
async function waitSounds(page, n) {
    try {
        await page.waitForFunction((k) => window.__sounds.length >= k, n,
                                   { timeout: 10000, polling: 50 });
    } catch {
        throw new Error(`expected ${n} sounds, heard ${
            JSON.stringify(await heard(page))}`);
    }
    return heard(page);
}

const opts = { a: { beforeGoto: spy }, b: { beforeGoto: spy } };

test('a game sounds: start, move, castle, capture, check, end; mute',
     { timeout: 120000 }, async (t) => {
    const { a, b } = await twoPlayers(t, opts);
    const link = await invite(a.page, { preset: '5-3', color: 'white' });
    await join(b.page, link);
    for (const p of [a, b]) {
        const h = await waitSounds(p.page, 1);
        assert.deepEqual(h.sounds, ['start']);
        assert.equal(h.contexts, 1, 'one AudioContext, made on a gesture');
        assert.ok(h.tones > 0, 'the start sound played tones');
    }
    // Each move's sound on both pages, by what the move did.
    const plan = [['e2e4', 'move'], ['e7e5', 'move'], ['g1f3', 'move'],
                  ['b8c6', 'move'], ['f1c4', 'move'], ['g8f6', 'move'],
                  ['e1g1', 'castle'], ['f6e4', 'capture'],
                  ['c4f7', 'check']];
    let n = 1;
    for (const [i, [uci, want]] of plan.entries()) {
        const before = await Promise.all([heard(a.page), heard(b.page)]);
        await clickMove(i % 2 === 0 ? a.page : b.page, uci);
        n += 1;
        for (const [k, p] of [a, b].entries()) {
            const h = await waitSounds(p.page, n);
            assert.equal(h.sounds[n - 1], want, `${uci} sounds ${want}`);
            assert.ok(h.tones > before[k].tones, `${uci} played tones`);
            assert.equal(await p.page.getAttribute('html', 'data-last-sound'),
                         want);
        }
    }
    // Muted with the switch by the board: A hears nothing, B still does.
    await a.page.click('#sound-toggle');
    assert.equal(await a.page.getAttribute('#sound-toggle', 'aria-pressed'),
                 'true');
    const mutedAt = await heard(a.page);
    await clickMove(b.page, 'e8f7');
    n += 1;
    const hb = await waitSounds(b.page, n);
    assert.equal(hb.sounds[n - 1], 'capture');
    await b.page.click('#resign-btn');
    await confirm(b.page);
    await waitText(a.page, '#end-title', /^You won$/);
    const hb2 = await waitSounds(b.page, n + 1);
    assert.equal(hb2.sounds[n], 'end');
    const ha = await heard(a.page);
    assert.deepEqual(ha.sounds, mutedAt.sounds, 'muted: no sound named');
    assert.equal(ha.tones, mutedAt.tones, 'muted: no tone played');
    assertClean(t, a, b);
});

test('low time sounds once per turn; the game end after a flag',
     { timeout: 120000 }, async (t) => {
    const { a, b } = await twoPlayers(t, opts);
    await a.page.click('label[for="tc-custom"]');
    await a.page.check('input[name="kind"][value="per_move"]');
    await a.page.fill('#c-permove', '5');
    await waitText(a.page, '#custom-summary', /^5 s per move$/);
    const link = await invite(a.page, { preset: 'custom', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'e7e5');
    // White's 5 s run out: the warning at 3 s (the larger of 3 s and a
    // fifth of the budget) once, then the end.
    await waitText(a.page, '#end-title', /^You lost$/, 10000);
    const ha = await waitSounds(a.page, 5);
    assert.deepEqual(ha.sounds, ['start', 'move', 'move', 'lowtime', 'end']);
    // B's clock never ran low: no warning on B's page.
    const hb = await waitSounds(b.page, 4);
    assert.deepEqual(hb.sounds, ['start', 'move', 'move', 'end']);
    assertClean(t, a, b);
});

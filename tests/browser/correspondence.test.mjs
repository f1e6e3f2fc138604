// A correspondence game (days per move): the lobby and the player's own
// page list the games in progress with a "Your turn" mark, the favicon is
// marked while a game waits for the player's move, the permission to
// notify is asked when a correspondence game is created, the opponent's move
// brings a notice to a player in the lobby, and a correspondence game in
// progress does not stop the player from seeking another.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, axeSerious, clickMove, invite, join, myName, screenshot,
    twoPlayers, waitText,
} from './lib.mjs';

const icon = (page) => page.getAttribute('link[rel="icon"]', 'href');

test('correspondence: your games, the your-turn mark, the notice',
     { timeout: 120000 }, async (t) => {
    const { server, a, b } = await twoPlayers(t);
    const nameA = await myName(a.page);
    const nameB = await myName(b.page);

    // A invites to a game of 2 days a move (the custom "Days per move"):
    // the page asks for the permission to notify then, and only then.
    await a.page.evaluate(() => {
        window.asked = 0;
        window.Notification = class {
            static permission = 'default';
            static requestPermission() {
                window.asked += 1;
                return Promise.resolve('denied');
            }
        };
    });
    await a.page.click('#invite-btn');
    await a.page.click('label[for="tc-custom"]');
    await a.page.check('input[name="kind"][value="days"]');
    await a.page.selectOption('#c-days', '2');
    await waitText(a.page, '#custom-summary', /^2 days per move$/);
    const link = await invite(a.page, { preset: 'custom', color: 'white' });
    assert.equal(await a.page.evaluate(() => window.asked), 1);
    await join(b.page, link);
    await waitText(a.page, '#notice',
                   /You have (2 days|1 day 23 h) to make the first move/);
    await clickMove(a.page, 'e2e4');

    // B in the lobby: the game waits for B's move, marked so.
    await b.page.goto(`${server.base}/`);
    const mineB = '#mygames-list li[data-game]';
    await waitText(b.page, `${mineB} .turn-mark`, /^Your turn$/);
    await waitText(b.page, `${mineB} .mygame-what`,
                   new RegExp(`^2 days per move against ${nameA}$`));
    await waitText(b.page, `${mineB} .mygame-left`, /^(2 days|1 day 23 h) left$/);
    assert.equal(await icon(b.page), '/favicon-turn.svg');
    await waitText(b.page, '#seeks-empty', /Nobody is waiting/);
    assert.deepEqual(await axeSerious(b.page), []);
    await screenshot(b.page, 'correspondence-lobby.png');

    // A in the lobby: not A's turn; A may seek another game meanwhile.
    await a.page.goto(`${server.base}/`);
    await waitText(a.page, '#mygames-list .wait-mark', /^Their turn$/);
    assert.equal(await icon(a.page), '/favicon.svg');
    assert.equal(await a.page.isDisabled('#seek-btn'), false);

    // B answers from the game page; A, in the lobby, is told.
    await b.page.click(`${mineB} a`);
    await b.page.waitForURL(/\/g\//);
    await clickMove(b.page, 'e7e5');
    await waitText(a.page, '.toast', new RegExp(`^${nameB} played e5: your move`));
    await waitText(a.page, '#mygames-list .turn-mark', /^Your turn$/);
    assert.equal(await icon(a.page), '/favicon-turn.svg');

    // A's own page lists it too; another player's page does not.
    await a.page.click('#my-history');
    await waitText(a.page, '#player-mine-list .turn-mark', /^Your turn$/);
    await waitText(a.page, '#player-status', /^No finished games yet\.$/);
    assert.deepEqual(await axeSerious(a.page), []);
    await screenshot(a.page, 'correspondence-player.png');
    await b.page.goto(a.page.url());
    await waitText(b.page, '#player-title', new RegExp(`^Games of|^Finished`));
    assert.equal(await b.page.isHidden('#player-mine'), true);
    assertClean(t, a, b);
});

// Within the rect of the viewport, and not cut: the element's text fits its
// box (a name cut to "G…" has scrollWidth > clientWidth).
async function shownWhole(page, selector) {
    return page.$eval(selector, (el) => {
        const r = el.getBoundingClientRect();
        const inside = r.width > 0 && r.left >= 0 && r.top >= 0 &&
            r.right <= innerWidth && r.bottom <= innerHeight;
        return inside && el.scrollWidth <= el.clientWidth + 1 ?
            'whole' : `${JSON.stringify(r)} scroll ${el.scrollWidth}/${el.clientWidth}`;
    });
}

// The same on a phone, where a correspondence player mostly is: the game
// waiting for the move is on the lobby's first screen, the days clock and
// the opponent's name are whole on the game page, and the notice of the
// opponent's move can be tapped from the lobby to the game.
test('correspondence on a phone: the first screen, the clock, the notice',
     { timeout: 120000 }, async (t) => {
    const { server, a, b } = await twoPlayers(t, { b: { phone: true } });
    const nameA = await myName(a.page);
    await a.page.click('#invite-btn');
    await a.page.click('label[for="tc-custom"]');
    await a.page.check('input[name="kind"][value="days"]');
    await a.page.selectOption('#c-days', '3');
    const link = await invite(a.page, { preset: 'custom', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'e2e4');

    // B's lobby: the game in progress on the first screen, tapped to play.
    await b.page.goto(`${server.base}/`);
    const mine = '#mygames-list li[data-game]';
    await waitText(b.page, `${mine} .turn-mark`, /^Your turn$/);
    assert.equal(await shownWhole(b.page, `${mine} .turn-mark`), 'whole');
    assert.deepEqual(await axeSerious(b.page), []);
    await b.page.tap(`${mine} a`);
    await b.page.waitForURL(/\/g\//);

    // The game page: both names and both days clocks whole, before and
    // after the move (a clock of "2d 23h" at a phone's clock size took
    // the name's room: "Guest-A1R…").
    await waitText(b.page, '#bar-top .name', new RegExp(`^${nameA}$`));
    await waitText(b.page, '#bar-top .clock', /^[0-9]+d [0-9]+h$/);
    const whole = async () => {
        for (const bar of ['#bar-top', '#bar-bottom'])
            for (const what of ['.name', '.clock'])
                assert.equal(await shownWhole(b.page, `${bar} ${what}`),
                             'whole', `${bar} ${what}`);
    };
    await whole();
    await clickMove(b.page, 'e7e5');
    await waitText(b.page, '#bar-top .clock', /^2d 23h$/);
    await whole();
    await screenshot(b.page, 'correspondence-phone-game.png');

    // Back in the lobby, A's answer comes as a notice whose Play button is
    // on screen and takes B to the game.
    await b.page.goto(`${server.base}/`);
    await waitText(b.page, '#mygames-list .wait-mark', /^Their turn$/);
    await clickMove(a.page, 'g1f3');
    await waitText(b.page, '.toast', /played Nf3: your move/);
    assert.equal(await shownWhole(b.page, '.toast .toast-action'), 'whole');
    assert.deepEqual(await axeSerious(b.page), []);
    await screenshot(b.page, 'correspondence-phone-notice.png');
    await b.page.tap('.toast .toast-action');
    await b.page.waitForURL(/\/g\//);
    await waitText(b.page, '#bar-top .clock', /^[0-9]+d [0-9]+h$/);
    assertClean(t, a, b);
});

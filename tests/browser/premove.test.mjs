// Premoves (issue 14): queued on the opponent's turn, shown on the board,
// cancelled by a right-click or a click elsewhere, sent the moment the
// opponent's `moved` reaches the page and charged next to nothing by the
// server; one that became illegal is dropped with a note.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    assertClean, clickMove, invite, join, logWebSocket, premove, sanList, sq,
    twoPlayers, waitText, wsMessages,
} from './lib.mjs';

// The UCIs of the moves the page sent.
async function sentMoves(page) {
    return (await wsMessages(page, 'out', 'move')).map((e) => e.msg.uci);
}

async function premoveSquares(page) {
    return page.locator('#board .sq.premove').count();
}

test('premoves: cancelled, played at once, dropped when illegal',
     { timeout: 120000 }, async (t) => {
    const { a, b } = await twoPlayers(t, { b: { beforeGoto: logWebSocket } });
    // 1+0: Fischer without increment, so a clock's drop is what the
    // server charged.
    const link = await invite(a.page, { preset: '1-0', color: 'white' });
    await join(b.page, link);
    await clickMove(a.page, 'e2e4');
    await clickMove(b.page, 'f7f5');

    // White to move: Black queues Nc6, shown on b8 and c6.
    await premove(b.page, 'b8c6');
    assert.equal(await premoveSquares(b.page), 2);
    await waitText(b.page, '#status', /^Premove b8-c6 queued/);
    // A right-click on the board cancels it.
    await b.page.click(sq('h4'), { button: 'right' });
    await b.page.locator('#board .sq.premove').waitFor({ state: 'detached' });
    await waitText(b.page, '#status', /^Waiting for your opponent to move$/);
    // So does a click elsewhere on the board (an empty square).
    await premove(b.page, 'b8c6');
    await b.page.click(sq('d5'));
    await b.page.locator('#board .sq.premove').waitFor({ state: 'detached' });
    assert.deepEqual(await sentMoves(b.page), ['f7f5'],
                     'nothing sent for the cancelled premoves');

    // Queued again: it goes out as White's move arrives.
    await premove(b.page, 'b8c6');
    await clickMove(a.page, 'b1c3');
    await waitText(a.page, '#moves', /Nc6/);
    assert.deepEqual(await sanList(b.page), ['e4', 'f5', 'Nc3', 'Nc6']);
    assert.equal(await premoveSquares(b.page), 0);
    const moved = await wsMessages(b.page, 'in', 'moved');
    const nc3 = moved.find((e) => e.msg.uci === 'b1c3');
    const nc6 = moved.find((e) => e.msg.uci === 'b8c6');
    const [sent] = (await wsMessages(b.page, 'out', 'move'))
        .filter((e) => e.msg.uci === 'b8c6');
    const reaction = sent.at - nc3.at;
    const charged = nc3.msg.clocks.black_ms - nc6.msg.clocks.black_ms;
    console.log(`premove: sent ${reaction.toFixed(1)} ms after the ` +
                `opponent's moved reached the page; the server charged ${
                    charged} ms`);
    // Sent while the page handled White's move: no frame, animation or
    // timer in between (a property, not a time: the figures above vary
    // with the machine's load).
    assert.equal(sent.during, nc3.index, `sent after ${reaction} ms`);
    assert.equal(nc3.msg.clocks.running, 'black');
    // The server charged Black about nothing: far less than a human's
    // fastest reply (a loose bound: a loaded machine delays the page).
    assert.ok(charged < 500, `charged ${charged} ms`);

    // A premove the opponent's move makes illegal (Nf6 does not answer
    // Qh5+) is dropped with a note, and nothing is sent.
    await premove(b.page, 'g8f6');
    await clickMove(a.page, 'd1h5');
    await waitText(b.page, '.toast',
                   /Premove g8-f6 is not legal now: dropped/);
    await waitText(b.page, '#status', /^Your move: you are in check$/);
    assert.equal(await premoveSquares(b.page), 0);
    assert.deepEqual(await sentMoves(b.page), ['f7f5', 'b8c6']);
    // The player answers the check by hand.
    await clickMove(b.page, 'g7g6');
    await waitText(a.page, '#moves', /g6/);
    assertClean(t, a, b);
});

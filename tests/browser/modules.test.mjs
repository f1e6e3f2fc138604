// The client's DOM-free modules, run directly in node: replaying server
// moves for the move browser, and the words the page uses.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    applyUci, fenAt, kingSquare, materialDiff, moveNumber, parseFen,
    squareIndex, squareName,
} from '../../web/position.js';
import { categoryOf, graphModel } from '../../web/ratings.js';
import { matchMove } from '../../web/keymove.js';
import { normalize, SETTINGS } from '../../web/settings.js';
import { lowTimeMs, SOUNDS, soundForMove } from '../../web/sound.js';
import * as W from '../../web/words.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

function replay(fen, moves) {
    let b = parseFen(fen).board;
    for (const m of moves)
        b = applyUci(b, m);
    return b;
}

const at = (b, sq) => b[squareIndex(sq)];

test('squares and FEN placement', () => {
    assert.equal(squareIndex('a1'), 0);
    assert.equal(squareIndex('h8'), 63);
    assert.equal(squareName(12), 'e2');
    const { board, turn } = parseFen(START);
    assert.equal(turn, 'w');
    assert.equal(at(board, 'e1'), 'wK');
    assert.equal(at(board, 'd8'), 'bQ');
    assert.equal(at(board, 'e4'), null);
    assert.equal(board.filter(Boolean).length, 32);
    assert.equal(kingSquare(board, 'b'), squareIndex('e8'));
    assert.equal(parseFen('8/8/8/8/8/8/8/K6k b - - 0 1').turn, 'b');
    assert.throws(() => parseFen('8/8/8 w - - 0 1'));
    assert.throws(() => parseFen('9/8/8/8/8/8/8/8 w - - 0 1'));
    assert.throws(() => parseFen('rnbqkbnrr/8/8/8/8/8/8/8 w - - 0 1'));
});

test('replay: castling both ways brings the rook', () => {
    const b = replay(START, ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'd7d6',
                             'e1g1', 'c8g4', 'd2d3', 'd8d7', 'c1e3', 'e8c8']);
    assert.equal(at(b, 'g1'), 'wK');
    assert.equal(at(b, 'f1'), 'wR');
    assert.equal(at(b, 'h1'), null);
    assert.equal(at(b, 'e1'), null);
    assert.equal(at(b, 'c8'), 'bK');
    assert.equal(at(b, 'd8'), 'bR');
    assert.equal(at(b, 'a8'), null);
});

test('replay: en passant removes the passed pawn; a plain capture not',
     () => {
    const b = replay(START, ['e2e4', 'a7a6', 'e4e5', 'd7d5', 'e5d6']);
    assert.equal(at(b, 'd6'), 'wP');
    assert.equal(at(b, 'd5'), null);
    assert.equal(at(b, 'e5'), null);
    const c = replay(START, ['e2e4', 'd7d5', 'e4d5']);
    assert.equal(at(c, 'd5'), 'wP');
    assert.equal(c.filter(Boolean).length, 31);
});

test('replay: promotion to the named piece, also with capture', () => {
    const b = replay('1n5k/P7/8/8/8/8/8/K7 w - - 0 1', ['a7b8n']);
    assert.equal(at(b, 'b8'), 'wN');
    assert.equal(at(b, 'a7'), null);
    const d = replay('k7/8/8/8/8/8/5p2/K5N1 b - - 0 1', ['f2g1r']);
    assert.equal(at(d, 'g1'), 'bR');
});

// The FENs below are the server's (chess-cli moves/status read them back
// the same) for the positions the moves reach.
test('fenAt: the FEN of a position browsed back to', () => {
    const moves = ['e2e4', 'd7d5', 'e4e5', 'f7f5', 'e1e2', 'g8f6', 'h2h3',
                   'h8g8'];
    assert.equal(fenAt(START, moves, 0), START);
    // no black pawn beside e4: no en-passant square
    assert.equal(fenAt(START, moves, 1),
                 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
    // f7f5 beside the e5 pawn: f6, which exf6 could take
    assert.equal(fenAt(START, moves, 4),
                 'rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3');
    // the king's move loses both white rights, the rook's black's k
    assert.equal(fenAt(START, moves, 6),
                 'rnbqkb1r/ppp1p1pp/5n2/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w kq - 2 4');
    assert.equal(fenAt(START, moves, 8),
                 'rnbqkbr1/ppp1p1pp/5n2/3pPp2/8/7P/PPPPKPP1/RNBQ1BNR w q - 1 5');
    // a capture on a rook's corner takes that right; Black to move first
    assert.equal(fenAt('r3k2r/8/8/8/8/8/6B1/4K3 b kq - 7 30',
                       ['e8f8', 'g2a8'], 2),
                 'B4k1r/8/8/8/8/8/8/4K3 b - - 0 31');
});

test('clock faces', () => {
    assert.equal(W.formatClock(300000), '5:00');
    assert.equal(W.formatClock(59999), '0:59');
    assert.equal(W.formatClock(10000), '0:10');
    assert.equal(W.formatClock(9999), '9.9');
    assert.equal(W.formatClock(0), '0.0');
    assert.equal(W.formatClock(-50), '0.0');
    assert.equal(W.formatClock(3723000), '1:02:03');
    assert.equal(W.formatClock(2 * 86400000 + 3 * 3600000 + 5000), '2d 3h');
    assert.equal(W.formatClock(86400000), '1d 0h');
    assert.equal(W.formatClock(86399000), '23:59:59');
    assert.equal(W.timeLeftText(2 * 86400000), '2 days left');
    assert.equal(W.timeLeftText(86400000 + 5 * 3600000), '1 day 5 h left');
    assert.equal(W.timeLeftText(5 * 3600000 + 1), '5 h left');
    assert.equal(W.timeLeftText(12 * 60000), '12 min left');
    assert.equal(W.timeLeftText(59000), 'less than a minute left');
    assert.equal(W.seconds(1001), 2);
    assert.equal(W.seconds(-1), 0);
});

test('time controls in words', () => {
    const f = (i, n) => ({ type: 'fischer', initial_s: i, increment_s: n });
    assert.equal(W.clockLabel(f(180, 2)), '3+2');
    assert.equal(W.clockLabel(f(30, 0)), '30s+0');
    assert.equal(W.clockLabel(f(90, 1)), '1.5+1');
    assert.equal(W.clockLabel({ type: 'per_move', per_move_s: 60 }),
                 '1 min per move');
    assert.equal(W.clockLabel({ type: 'per_move', per_move_s: 86400 }),
                 '1 day per move');
    assert.equal(W.clockLabel({ type: 'per_move', per_move_s: 45 }),
                 '45 s per move');
    assert.equal(W.clockSpeed(f(60, 0)), 'Bullet');
    assert.equal(W.clockSpeed(f(180, 2)), 'Blitz');
    assert.equal(W.clockSpeed(f(600, 5)), 'Rapid');
    assert.equal(W.clockSpeed(f(1800, 0)), 'Classical');
});

test('dead-position proofs in words', () => {
    const ranks = (from, to) => {
        const out = [];
        for (let r = from; r <= to; r++)
            for (const f of 'abcdefgh')
                out.push(f + r);
        return out;
    };
    assert.equal(W.squaresText(['a4', 'c4']), 'a4, c4');
    assert.equal(W.squaresText([...ranks(1, 3), 'h4']), 'ranks 1–3, h4');
    assert.equal(W.squaresText([...ranks(2, 2), ...ranks(5, 6)]),
                 'rank 2, ranks 5–6');
    assert.equal(W.squaresText([]), 'no square');
    assert.deepEqual(W.proofText(null), []);
    assert.deepEqual(W.proofText({ white: 'material', black: 'material' }),
                     ['Neither side can checkmate: insufficient material.']);
    assert.deepEqual(
        W.proofText({ white: null, black: 'search', positions: 12345 }),
        ['Black cannot checkmate: all 12,345 positions that can still ' +
         'arise were examined, and none is a checkmate by Black.']);
    assert.deepEqual(W.proofText({ white: null, black: 'search' }),
                     ['Black cannot checkmate: every position that can ' +
                      'still arise was examined, and none is a checkmate ' +
                      'by Black.']);
    assert.deepEqual(
        W.proofText({ white: 'material', black: 'locked', locked: ['a4'],
                      reach: { white: ranks(1, 3), black: ['a8', 'b8'] } }),
        ['White cannot checkmate: insufficient material.',
         'Black cannot checkmate: the pawns are locked: a4 never move; ' +
         'White’s king and pieces can only reach ranks 1–3, and Black’s ' +
         'only a8, b8.']);
});

test('results and reasons in words', () => {
    assert.equal(W.resultTitle('1-0', 'white'), 'You won');
    assert.equal(W.resultTitle('1-0', 'black'), 'You lost');
    assert.equal(W.resultTitle('0-1', null), 'Black wins');
    assert.equal(W.resultTitle('1/2-1/2', 'white'), 'Draw');
    assert.equal(W.resultTitle('*', null), 'Game aborted');
    assert.equal(W.resultTitle('*', 'white', 'cancelled'),
                 'Invitation cancelled');
    assert.equal(W.reasonText('*', 'no_start', 'black'),
                 'Black did not make the first move in time: no game, ' +
                 'no result.');
    assert.equal(W.reasonText('1-0', 'checkmate'),
                 'White wins by checkmate.');
    assert.equal(W.reasonText('0-1', 'timeout'),
                 'White ran out of time. Black wins on time.');
    assert.equal(W.reasonText('1/2-1/2', 'timeout_vs_insufficient', 'white'),
                 'Draw: White ran out of time, but Black could not checkmate.');
    assert.equal(W.reasonText('1/2-1/2', 'timeout_vs_insufficient'),
                 'Draw: the opponent of the player who ran out of time ' +
                 'could not checkmate.');
    const reasons = ['checkmate', 'resignation', 'abandoned', 'timeout',
                     'timeout_vs_insufficient', 'stalemate', 'dead_position',
                     'fivefold', 'seventy_five_moves', 'threefold',
                     'fifty_moves', 'agreement', 'aborted', 'no_start',
                     'cancelled'];
    const texts = new Set(reasons.map((r) => W.reasonText('1-0', r, 'white')));
    assert.equal(texts.size, reasons.length, 'every reason has its words');
    for (const t of texts)
        assert.doesNotMatch(t, /undefined|null|_/);
});

test('every protocol error code has a human message', () => {
    const codes = ['bad_json', 'bad_field', 'unknown_type', 'unauthenticated',
                   'bad_token', 'no_such_game', 'not_a_player', 'not_started',
                   'game_over', 'stale_ply', 'not_your_turn', 'illegal_move',
                   'bad_clock', 'claim_rejected', 'seat_taken', 'own_game',
                   'no_draw_offer', 'abort_not_allowed', 'no_seek',
                   'rate_limited', 'too_many_games', 'no_rematch',
                   'rated_needs_account', 'needs_account',
                   'bad_username', 'name_taken', 'weak_password',
                   'already_registered', 'bad_credentials',
                   'no_such_seek', 'rating_out_of_range', 'address_full',
                   'server_full', 'busy', 'no_engine', 'chat_not_allowed',
                   'muted', 'blocked', 'too_many_blocks', 'already_reported',
                   'draw_too_early'];
    for (const c of codes) {
        const t = W.errorText(c, 'server words');
        assert.doesNotMatch(t, /^Error/, c);
        assert.match(t, /\.$/, c);
    }
    assert.equal(W.errorText('bad_field', 'fen: no white king'),
                 'The server refused a request: fen: no white king.');
    assert.equal(W.errorText('too_many_games', 'you are playing 1 ' +
                             'game(s) against the computer: the most ' +
                             'there may be'),
                 'You are playing the computer already: finish that game ' +
                 'first.');
    assert.equal(W.errorText('no_rematch', 'your opponent has left'),
                 'No rematch of this game is possible: your opponent has ' +
                 'left.');
    assert.equal(W.errorText('something_new', 'what happened'),
                 'Error: what happened');
});

test('refused sign-ups and logins in words', () => {
    for (const c of ['bad_username', 'name_taken', 'weak_password',
                     'already_registered', 'bad_credentials']) {
        assert.equal(W.accountErrorText(c, 'server words'),
                     W.errorText(c, 'server words'), c);
        assert.doesNotMatch(W.accountErrorText(c), /server words/, c);
    }
    assert.equal(W.accountErrorText('rate_limited',
                                    'too many logins for this username'),
                 'Too many attempts: wait a minute, then try again.');
    assert.equal(W.accountErrorText('rate_limited',
                                    'the server is busy; try again'),
                 'The server is busy checking passwords: try again in a ' +
                 'moment.');
});

test('a game in a list of games, from one player\'s side', () => {
    assert.equal(W.outcome('1-0', 'white'), 'Won');
    assert.equal(W.outcome('1-0', 'black'), 'Lost');
    assert.equal(W.outcome('0-1', 'black'), 'Won');
    assert.equal(W.outcome('0-1', 'white'), 'Lost');
    assert.equal(W.outcome('1/2-1/2', 'black'), 'Draw');
    const reasons = ['checkmate', 'resignation', 'abandoned', 'timeout',
                     'timeout_vs_insufficient', 'stalemate', 'dead_position',
                     'fivefold', 'seventy_five_moves', 'threefold',
                     'fifty_moves', 'agreement', 'aborted', 'no_start',
                     'cancelled'];
    const short = new Set(reasons.map((r) => W.reasonShort(r)));
    assert.equal(short.size, reasons.length, 'every reason has its words');
    for (const t of short)
        assert.doesNotMatch(t, /_/);
    assert.equal(W.reasonShort('resignation'), 'Resignation');
    assert.equal(W.reasonShort('something_new'), 'something_new');
});

test('why a rematch offer ended, from each side', () => {
    // rematch_declined: who sent it, whose offer it was, who reads it
    const say = (reason, by, offerer, you) =>
        W.rematchEndText(reason, by, offerer, you);
    assert.equal(say('declined', 'black', 'white', 'white'),
                 'Your opponent declined the rematch.');
    assert.equal(say('declined', 'black', 'white', 'black'),
                 'You declined the rematch.');
    assert.equal(say('declined', 'white', 'white', 'white'),
                 'You withdrew your rematch offer.');
    assert.equal(say('declined', 'white', 'white', 'black'),
                 'Your opponent withdrew the rematch offer.');
    assert.equal(say('declined', 'white', null, 'black'),
                 'Your opponent ended the rematch offer.');
    assert.equal(say('left', 'black', 'white', 'white'),
                 'Your opponent left: the rematch offer lapsed.');
    assert.equal(say('left', 'white', 'black', 'white'),
                 'You left the game: the rematch offer lapsed.');
    assert.equal(say('expired', null, 'white', 'black'),
                 'The rematch offer expired.');
    assert.equal(say('expired', null, null, 'white'),
                 'The rematch offer expired.');
});

test('rating categories by clock, as the server counts them', () => {
    const f = (i, n) => ({ type: 'fischer', initial_s: i, increment_s: n });
    assert.equal(categoryOf(f(179, 0)), 'bullet');
    assert.equal(categoryOf(f(60, 2)), 'bullet');    // 60 + 80 = 140
    assert.equal(categoryOf(f(120, 2)), 'blitz');    // 120 + 80 = 200
    assert.equal(categoryOf(f(180, 0)), 'blitz');
    assert.equal(categoryOf(f(479, 0)), 'blitz');
    assert.equal(categoryOf(f(300, 5)), 'rapid');    // 300 + 200 = 500
    assert.equal(categoryOf(f(1499, 0)), 'rapid');
    assert.equal(categoryOf(f(1500, 0)), 'classical');
    assert.equal(categoryOf({ type: 'per_move', per_move_s: 86400 }),
                 'per_move');
    for (const c of W.CATEGORIES)
        assert.match(W.categoryName(c), /^[A-Z][a-z ]+$/);
});

test('ratings and their changes in words', () => {
    assert.equal(W.ratingText(1500, true), '1500?');
    assert.equal(W.ratingText(1712, false), '1712');
    assert.equal(W.ratingDiff(1500, 1512), '+12');
    assert.equal(W.ratingDiff(1500, 1493), '\u22127');
    assert.equal(W.ratingDiff(1500, 1500), '\u00b10');
});

test('rating graph: points inside the axes, labels that summarise', () => {
    const pts = [1500, 1662, 1580, 1431].map((rating, i) =>
        ({ ms: 1000 * i, rating, rd: 300 }));
    const m = graphModel(pts, 'blitz');
    assert.equal(m.xy.length, 4);
    for (const [x, y] of m.xy) {
        assert.ok(x >= m.left && x <= m.right, `x ${x}`);
        assert.ok(y >= m.top && y <= m.bottom, `y ${y}`);
    }
    // x by game number, left to right; y upward with the rating
    assert.equal(m.xy[0][0], m.left);
    assert.equal(m.xy[3][0], m.right);
    assert.ok(m.xy[1][1] < m.xy[0][1] && m.xy[3][1] > m.xy[0][1]);
    const labels = m.yTicks.map((t) => Number(t.label));
    assert.ok(labels[0] <= 1431 && labels[2] >= 1662, labels.join());
    assert.deepEqual(m.xTicks.map((t) => t.label), ['game 1', 'game 4']);
    assert.equal(m.label, 'Blitz rating over 4 rated games: first 1500, ' +
                 'last 1431, lowest 1431, highest 1662.');
    const one = graphModel([{ ms: 0, rating: 1500, rd: 350 }], 'per_move');
    assert.equal(one.xy.length, 1);
    assert.ok(one.xy[0][1] > one.top && one.xy[0][1] < one.bottom);
    assert.equal(one.label, 'Per move rating over 1 rated game: first ' +
                 '1500, last 1500, lowest 1500, highest 1500.');
});

test('the sound of a move, and when time is low', () => {
    assert.equal(soundForMove('e4'), 'move');
    assert.equal(soundForMove('Nxe5'), 'capture');
    assert.equal(soundForMove('exd6'), 'capture');
    assert.equal(soundForMove('O-O'), 'castle');
    assert.equal(soundForMove('O-O-O'), 'castle');
    assert.equal(soundForMove('O-O+'), 'check');
    assert.equal(soundForMove('Bxf7+'), 'check');
    assert.equal(soundForMove('Qh5#'), 'check');
    assert.equal(soundForMove('a8=Q'), 'move');
    for (const name of ['move', 'capture', 'check', 'castle', 'start', 'end',
                        'lowtime'])
        assert.ok(SOUNDS[name].length > 0, name);
    assert.equal(lowTimeMs({ type: 'fischer', initial_s: 60, increment_s: 0 }),
                 10000);
    assert.equal(lowTimeMs({ type: 'fischer', initial_s: 900,
                             increment_s: 10 }), 10000);
    // per move: the larger of 3 s and a fifth of the budget
    assert.equal(lowTimeMs({ type: 'per_move', per_move_s: 5 }), 3000);
    assert.equal(lowTimeMs({ type: 'per_move', per_move_s: 15 }), 3000);
    assert.equal(lowTimeMs({ type: 'per_move', per_move_s: 20 }), 4000);
    assert.equal(lowTimeMs({ type: 'per_move', per_move_s: 60 }), 12000);
});

test('material difference and move numbers', () => {
    const diff = (fen) => materialDiff(parseFen(fen).board);
    assert.deepEqual(diff(START), { white: { up: [], score: 0 },
                                    black: { up: [], score: 0 } });
    // White took a knight and a pawn, Black a bishop: White is up N, P,
    // Black up B; in points 3 + 1 - 3 = +1 for White.
    assert.deepEqual(diff('r1bqkbnr/ppp1pppp/8/8/8/8/PPPPPPPP/RN1QKBNR w ' +
                          'KQkq - 0 1'),
                     { white: { up: ['N', 'P'], score: 1 },
                       black: { up: ['B'], score: 0 } });
    // A promoted queen against a rook: up Q for White, +4 (a pawn less).
    assert.deepEqual(diff('4k3/8/8/8/8/8/8/Q3K2r w - - 0 1'),
                     { white: { up: ['Q'], score: 4 },
                       black: { up: ['R'], score: 0 } });
    assert.deepEqual(diff('4k3/pp6/8/8/8/8/8/4K3 w - - 0 1'),
                     { white: { up: [], score: 0 },
                       black: { up: ['P', 'P'], score: 2 } });
    assert.deepEqual(moveNumber(START, 1), { no: 1, white: true });
    assert.deepEqual(moveNumber(START, 12), { no: 6, white: false });
    assert.deepEqual(moveNumber(START, 13), { no: 7, white: true });
    // a set-up position with Black to move at move 20
    const setup = '4k3/8/8/8/8/8/8/4K3 b - - 0 20';
    assert.deepEqual(moveNumber(setup, 1), { no: 20, white: false });
    assert.deepEqual(moveNumber(setup, 2), { no: 21, white: true });
    assert.equal(W.materialText([], 0), '');
    assert.equal(W.materialText(['N', 'P', 'P'], 5),
                 'up a knight and 2 pawns, +5 points');
    assert.equal(W.materialText(['Q', 'R', 'P'], 1),
                 'up a queen, a rook and a pawn, +1 point');
    assert.equal(W.materialText(['B'], 0), 'up a bishop');
    assert.equal(W.lagText(120.4), 'lag credit 120 ms');
    assert.equal(W.lagShort(254.6), '+0.25s');
    assert.equal(W.lagShort(255), '+0.26s');
    assert.equal(W.lagShort(105), '+0.11s');
    assert.equal(W.lagShort(1000), '+1.00s');
    assert.equal(W.LAG_SHOWN_MS, 100);
});

test('the signal bar: steps of the round trip', () => {
    assert.deepEqual([null, undefined, 0, 1, 149, 150, 299, 300, 499, 500,
                      5000].map(W.signalLevel),
                     [0, 0, 0, 4, 4, 3, 3, 2, 2, 1, 1]);
    assert.equal(W.signalText('white', 240),
                 "White's connection: good, 240 ms round trip");
    assert.equal(W.signalText('black', null),
                 "Black's connection: not measured yet");
});

test('the time control line above the board', () => {
    const f = (i, inc) => ({ type: 'fischer', initial_s: i, increment_s: inc });
    assert.equal(W.gameKindText(f(300, 3), true), 'Rated blitz · 5+3');
    assert.equal(W.gameKindText(f(60, 0), false), 'Casual bullet · 1+0');
    assert.equal(W.gameKindText(f(600, 5), false), 'Casual rapid · 10+5');
    assert.equal(W.gameKindText(f(1800, 0), true), 'Rated classical · 30+0');
    assert.equal(W.gameKindText(f(30, 0), false), 'Casual bullet · 30s+0');
    assert.equal(W.gameKindText({ type: 'per_move', per_move_s: 30 }, false),
                 'Casual · 30 s per move');
    assert.equal(W.gameKindText({ type: 'per_move', per_move_s: 86400 },
                                true), 'Rated · 1 day per move');
    assert.equal(W.gameKindText(null, false), '');
});

test('settings: defaults, and a saved value used only when valid', () => {
    const def = normalize(null);
    assert.deepEqual(def, { theme: 'system', board: 'brown', sound: true,
                            volume: 70, autoQueen: false, hints: true,
                            coords: true, premoves: 1, confirmMoves: false,
                            boardSize: 100, animation: 'normal',
                            zen: false, takeback: 'casual', chat: 'on' });
    assert.deepEqual(Object.keys(def), Object.keys(SETTINGS));
    assert.deepEqual(normalize('junk'), def);
    const mine = { theme: 'light', board: 'purple', sound: false, volume: 35,
                   autoQueen: true, hints: false, coords: false, premoves: 4,
                   confirmMoves: true, boardSize: 80, animation: 'slow',
                   zen: true, takeback: 'always', chat: 'off' };
    assert.deepEqual(normalize({ ...mine, other: 1 }), mine);
    assert.deepEqual(normalize({ theme: 'pink', board: 7, sound: 'no',
                                 hints: 0, premoves: 11, volume: 101,
                                 boardSize: 82, animation: 'warp',
                                 zen: 'yes', takeback: 'sometimes',
                                 chat: false }), def);
    assert.equal(normalize({ premoves: 0 }).premoves, 0);
    assert.equal(normalize({ premoves: 1.5 }).premoves, 1);
    assert.equal(normalize({ premoves: -1 }).premoves, 1);
    assert.equal(normalize({ boardSize: 55 }).boardSize, 100);
    assert.equal(normalize({ volume: 0 }).volume, 0);
    // every setting, as the server keeps it (PROTOCOL.md section 4): at
    // most 32 keys of 1-32 of A-Z a-z 0-9 _ -, 2048 bytes written
    assert.ok(Object.keys(def).length <= 32);
    for (const k of Object.keys(def))
        assert.match(k, /^[A-Za-z0-9_-]{1,32}$/);
    assert.ok(JSON.stringify(mine).length <= 2048);
});

test('moves typed on the keyboard: SAN, UCI, castling, promotion', () => {
    const at = (fen) => parseFen(fen).board;
    const start = at('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
    const legal = ['a2a3', 'a2a4', 'b1a3', 'b1c3', 'b2b3', 'b2b4', 'c2c3',
                   'c2c4', 'd2d3', 'd2d4', 'e2e3', 'e2e4', 'f2f3', 'f2f4',
                   'g1f3', 'g1h3', 'g2g3', 'g2g4', 'h2h3', 'h2h4'];
    const m = (text) => matchMove(text, start, legal);
    assert.deepEqual(m('e4'), { moves: ['e2e4'], complete: true });
    assert.deepEqual(m('Nf3'), { moves: ['g1f3'], complete: true });
    assert.deepEqual(m('nf3'), { moves: ['g1f3'], complete: true });
    assert.deepEqual(m('Nf3+'), { moves: ['g1f3'], complete: true });
    assert.deepEqual(m('g1f3'), { moves: ['g1f3'], complete: true });
    assert.deepEqual(m('N'), { moves: [], complete: false });
    assert.deepEqual(m('Nf'), { moves: [], complete: false });
    assert.deepEqual(m('e5'), { moves: [], complete: false });
    assert.deepEqual(m('Ke2'), { moves: [], complete: false });
    // f3 waits (Enter plays it) while a move starts on f3 (UCI f3...)
    const mid = at('rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPP1PP/RNBQKB1R w KQkq - 2 2');
    const f3 = matchMove('f3', mid, ['e2e3', 'f3e5', 'f3g5']);
    assert.deepEqual(f3, { moves: [], complete: false });
    const f2 = at('rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 2 2');
    assert.deepEqual(matchMove('f3', f2, ['f2f3', 'g1f3']),
                     { moves: ['f2f3'], complete: true });
    const both = at('rnbqkb1r/pppppppp/5n2/8/8/4N3/PPPPPPPP/RNBQKB1R w KQkq - 2 2');
    assert.deepEqual(matchMove('e4', both, ['e2e4', 'e3g4', 'e4e5']),
                     { moves: ['e2e4'], complete: false });
    assert.deepEqual(matchMove('f3g5', mid, ['f2f3', 'f3e5', 'f3g5']),
                     { moves: ['f3g5'], complete: true });
    // two knights to d2: ambiguous until disambiguated
    const two = at('4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1');
    const nd2 = ['b1d2', 'g1e2', 'e1d2', 'b1c3'];
    assert.deepEqual(matchMove('Nd2', two, ['b1d2', 'g1f3']).moves, ['b1d2']);
    const k = at('4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1');
    assert.deepEqual(matchMove('Nd2', k, ['b1d2', 'f3d2']).moves,
                     ['b1d2', 'f3d2']);
    assert.deepEqual(matchMove('Nbd2', k, ['b1d2', 'f3d2']).moves, ['b1d2']);
    assert.equal(nd2.length, 4);
    // castling, with O or 0
    const c = at('r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1');
    const cl = ['e1g1', 'e1c1', 'e1f1', 'a1b1'];
    assert.deepEqual(matchMove('O-O', c, cl), { moves: ['e1g1'],
                                                complete: false });
    assert.deepEqual(matchMove('0-0-0', c, cl), { moves: ['e1c1'],
                                                  complete: true });
    // a promotion: complete with its piece, four moves without
    const p = at('8/4P3/8/8/8/8/k7/4K3 w - - 0 1');
    const pl = ['e7e8q', 'e7e8r', 'e7e8b', 'e7e8n', 'e1d1'];
    assert.deepEqual(matchMove('e8=Q', p, pl), { moves: ['e7e8q'],
                                                 complete: true });
    assert.deepEqual(matchMove('e8n', p, pl).moves, ['e7e8n']);
    assert.equal(matchMove('e8', p, pl).moves.length, 4);
    assert.equal(matchMove('e8', p, pl).complete, false);
    assert.equal(matchMove('e7e8', p, pl).moves.length, 4);
    assert.deepEqual(matchMove('e7e8q', p, pl), { moves: ['e7e8q'],
                                                  complete: true });
    // a pawn's capture, with or without the x; b is a file
    const x = at('4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1');
    assert.deepEqual(matchMove('exd5', x, ['e4e5', 'e4d5']).moves, ['e4d5']);
    assert.deepEqual(matchMove('ed5', x, ['e4e5', 'e4d5']).moves, ['e4d5']);
    const b = at('4k3/8/8/8/8/2p5/1P6/2B1K3 w - - 0 1');
    assert.deepEqual(matchMove('bxc3', b, ['b2c3', 'b2b3']).moves, ['b2c3']);
});

// words.js - everything the client says to a person: piece names, time
// controls, game results and reasons, and server error codes.

const PIECE_NAMES = { P: 'pawn', N: 'knight', B: 'bishop', R: 'rook',
                      Q: 'queen', K: 'king' };

export function colorName(color) {
    return color === 'white' || color === 'w' ? 'White' : 'Black';
}

export function other(color) {
    return color === 'white' ? 'black' : 'white';
}

// 'wN' -> 'white knight'.
export function pieceName(code) {
    return (code[0] === 'w' ? 'white ' : 'black ') + PIECE_NAMES[code[1]];
}

export function promotionName(letter) {
    return PIECE_NAMES[letter.toUpperCase()];
}

// A clock object as people write it: '5+3', '1 min per move', '1 day per move'.
export function clockLabel(clock) {
    if (!clock)
        return '';
    if (clock.type === 'per_move') {
        const s = clock.per_move_s;
        if (s % 86400 === 0)
            return `${s / 86400} day${s === 86400 ? '' : 's'} per move`;
        if (s % 3600 === 0)
            return `${s / 3600} h per move`;
        if (s % 60 === 0)
            return `${s / 60} min per move`;
        return `${s} s per move`;
    }
    const init = clock.initial_s;
    const base = init % 60 === 0 ? String(init / 60)
        : init < 60 ? `${init}s` : (init / 60).toFixed(1);
    return `${base}+${clock.increment_s}`;
}

// The line above the board: rating, category and time control, e.g.
// 'Rated blitz · 5+3', 'Casual bullet · 1+0', 'Casual · 30 s per move'
// (a per-move clock's category says no more than its label).
export function gameKindText(clock, rated) {
    if (!clock)
        return '';
    const mode = rated ? 'Rated' : 'Casual';
    if (clock.type === 'per_move')
        return `${mode} · ${clockLabel(clock)}`;
    return `${mode} ${clockSpeed(clock).toLowerCase()} · ${clockLabel(clock)}`;
}

// Speed name of a clock, by its estimated duration (initial + 40 increments).
export function clockSpeed(clock) {
    if (!clock)
        return '';
    if (clock.type === 'per_move')
        return clock.per_move_s >= 3600 ? 'Correspondence' : 'Per move';
    const est = clock.initial_s + 40 * clock.increment_s;
    if (est < 180)
        return 'Bullet';
    if (est < 480)
        return 'Blitz';
    if (est < 1500)
        return 'Rapid';
    return 'Classical';
}

const MATERIAL_WORDS = { Q: ['queen', 'queens'], R: ['rook', 'rooks'],
                         B: ['bishop', 'bishops'], N: ['knight', 'knights'],
                         P: ['pawn', 'pawns'] };

// The material difference beside a name, for screen readers: 'up a knight
// and 2 pawns, +5 points' from ['N', 'P', 'P'] and 5 ('' when level).
export function materialText(up, score) {
    if (!up.length && !score)
        return '';
    const groups = [];
    for (const kind of ['Q', 'R', 'B', 'N', 'P']) {
        const n = up.filter((k) => k === kind).length;
        if (n)
            groups.push(n === 1 ? `a ${MATERIAL_WORDS[kind][0]}`
                : `${n} ${MATERIAL_WORDS[kind][1]}`);
    }
    const list = groups.length > 1
        ? `${groups.slice(0, -1).join(', ')} and ${groups[groups.length - 1]}`
        : groups[0] || 'nothing';
    return `up ${list}${score ? `, +${score} point${score === 1 ? '' : 's'}`
        : ''}`;
}

// A move's lag credit (moved's lag_ms) in words: 'lag credit 120 ms'.
export function lagText(ms) {
    return `lag credit ${Math.round(ms)} ms`;
}

// The smallest lag credit shown beside a clock: a tenth of a second, the
// finest digit a clock shows (below 10 s). A smaller one is a line's
// everyday jitter (half a round trip under 200 ms), noise beside the
// clock; the move list keeps every credit (its entry's title).
export const LAG_SHOWN_MS = 100;

// A lag credit beside the clock, in seconds to the hundredth: '+0.25s'.
export function lagShort(ms) {
    const cs = Math.round(ms / 10);
    return `+${Math.floor(cs / 100)}.${String(cs % 100).padStart(2, '0')}s`;
}

// The bars of a connection's signal from its round trip as the server
// measured it (moved's rtt_ms, state's rtt): 4 under 150 ms, 3 under 300,
// 2 under 500, else 1 (the steps of lichess's own signal); 0 while it
// was not measured (null).
export function signalLevel(rtt) {
    if (typeof rtt !== 'number' || rtt <= 0)
        return 0;
    return rtt < 150 ? 4 : rtt < 300 ? 3 : rtt < 500 ? 2 : 1;
}

const SIGNAL_WORDS = ['not measured yet', 'poor', 'weak', 'good',
                      'excellent'];

// The signal in words: 'White's connection: good, 240 ms round trip'.
export function signalText(color, rtt) {
    const level = signalLevel(rtt);
    return `${colorName(color)}'s connection: ${SIGNAL_WORDS[level]}${
        level ? `, ${Math.round(rtt)} ms round trip` : ''}`;
}

// A game's spectators (PROTOCOL.md section 6, Watchers): '1 spectator',
// '3 spectators' ('' for none).
// Why the draw offer waits in a game whose rule forbids a draw by
// agreement before ply `ply` (state's draw_from_ply: a Swiss game's 60).
export function drawTooEarlyText(ply) {
    return `No draw offers before move ${Math.ceil(ply / 2)} in this ` +
        'tournament\'s games.';
}

export function watchersText(n) {
    if (!n)
        return '';
    return n === 1 ? '1 spectator' : `${n} spectators`;
}

// The score of a finished game as written under it: 1-0, 0-1, ½-½ ('' for
// a game without a result).
export function scoreText(result) {
    return result === '1/2-1/2' ? '\u00bd-\u00bd'
        : result === '1-0' || result === '0-1' ? result : '';
}

// Milliseconds on a clock face: 1:05:09, 4:59, 0:21, 9.4 (tenths below 10 s);
// a correspondence clock's day or more in days and hours: 2d 23h.
export function formatClock(ms) {
    const t = Math.max(0, ms);
    if (t >= 86400000) {
        const h = Math.floor(t / 3600000);
        return `${Math.floor(h / 24)}d ${h % 24}h`;
    }
    if (t < 10000)
        return (Math.floor(t / 100) / 10).toFixed(1);
    const total = Math.floor(t / 1000);
    const h = Math.floor(total / 3600);
    const m = Math.floor((total % 3600) / 60);
    const s = String(total % 60).padStart(2, '0');
    return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

// The time a correspondence move has left, in words: '2 days left',
// '1 day 5 h left', '5 h left', '12 min left', 'less than a minute left'.
export function timeLeftText(ms) {
    const min = Math.floor(Math.max(0, ms) / 60000);
    const d = Math.floor(min / 1440), h = Math.floor((min % 1440) / 60);
    if (d > 0)
        return `${d} day${d === 1 ? '' : 's'}${h ? ` ${h} h` : ''} left`;
    if (h > 0)
        return `${h} h left`;
    return min > 0 ? `${min} min left` : 'less than a minute left';
}

// Whole seconds left, rounded up, for countdown sentences.
export function seconds(ms) {
    return Math.max(0, Math.ceil(ms / 1000));
}

// The headline of a finished game, from the point of view of `you`
// ('white', 'black' or null for a spectator); `reason` tells the games
// without a result apart.
export function resultTitle(result, you, reason) {
    if (result === '*')
        return reason === 'cancelled' ? 'Invitation cancelled'
            : 'Game aborted';
    if (result === '1/2-1/2')
        return 'Draw';
    const winner = result === '1-0' ? 'white' : 'black';
    if (you)
        return winner === you ? 'You won' : 'You lost';
    return `${colorName(winner)} wins`;
}

// The sentence that says why a game ended. `toMove` is the side to move in
// the final position (the side whose clock ran out for the timeouts, the
// side that did not make its first move for no_start). Its
// cases name exactly the reasons of the server's table of endings
// (common/ending.c; tests/unit/test_ending.c checks it).
export function reasonText(result, reason, toMove) {
    const winner = result === '1-0' ? 'White' : result === '0-1' ? 'Black'
        : null;
    const loser = winner === 'White' ? 'Black' : 'White';
    const flagged = toMove ? colorName(toMove) : null;
    switch (reason) {
    case 'checkmate':
        return `${winner} wins by checkmate.`;
    case 'resignation':
        return `${loser} resigned. ${winner} wins.`;
    case 'abandoned':
        return `${loser} left and did not come back in time. ${winner} wins.`;
    case 'timeout':
        return `${loser} ran out of time. ${winner} wins on time.`;
    case 'timeout_vs_insufficient':
        return flagged
            ? `Draw: ${flagged} ran out of time, but ${
                flagged === 'White' ? 'Black' : 'White'} could not checkmate.`
            : 'Draw: the opponent of the player who ran out of time ' +
              'could not checkmate.';
    case 'stalemate':
        return 'Draw by stalemate: the side to move has no legal move and ' +
               'is not in check.';
    case 'dead_position':
        return 'Draw: neither side can checkmate any more (dead position).';
    case 'fivefold':
        return 'Draw: the same position occurred five times.';
    case 'seventy_five_moves':
        return 'Draw: 75 moves by each side without a capture or a pawn move.';
    case 'threefold':
        return 'Draw claimed: the same position occurred three times.';
    case 'fifty_moves':
        return 'Draw claimed: 50 moves by each side without a capture or a ' +
               'pawn move.';
    case 'agreement':
        return 'Draw by agreement.';
    case 'aborted':
        return 'The game was aborted. No result.';
    case 'adjudicated':
        return 'A moderator gave the game to one side.';
    case 'adjudicated_draw':
        return 'A moderator made the game a draw.';
    case 'no_start':
        return flagged
            ? `${flagged} did not make the first move in time: no game, ` +
              'no result.'
            : 'A first move was not made in time: no game, no result.';
    case 'cancelled':
        return 'The invitation was cancelled before anyone joined.';
    default:
        return reason ? `Game over (${reason}).` : 'Game over.';
    }
}

// The squares of `list` (["a1","b1",...], as the server sends them) in
// words: every whole rank as "rank N" (runs of them "ranks N–M"), the
// other squares by name.
export function squaresText(list) {
    const set = new Set(list || []);
    const parts = [];
    const whole = (r) => 'abcdefgh'.split('').every((f) => set.has(f + r));
    for (let r = 1; r <= 8; r++) {
        if (!whole(r))
            continue;
        let last = r;
        while (last < 8 && whole(last + 1))
            last++;
        parts.push(last > r ? `ranks ${r}–${last}` : `rank ${r}`);
        r = last;
    }
    for (const sq of list || [])
        if (!whole(Number(sq[1])))
            parts.push(sq);
    return parts.length ? parts.join(', ') : 'no square';
}

// Why each side could not checkmate, as game_end and state give it with a
// dead_position or timeout_vs_insufficient ending (PROTOCOL.md section 7):
// one sentence per proof, both sides in one when they share it. [] when
// there is none.
export function proofText(proof) {
    if (!proof)
        return [];
    const sides = ['white', 'black'].filter((c) => proof[c]);
    const why = (kind, c) => {
        switch (kind) {
        case 'game_over':
            return 'the game is over on the board.';
        case 'material':
            return 'insufficient material.';
        case 'locked':
            return `the pawns are locked: ${squaresText(proof.locked)} ` +
                'never move; White’s king and pieces can only reach ' +
                `${squaresText(proof.reach && proof.reach.white)}, and ` +
                'Black’s only ' +
                `${squaresText(proof.reach && proof.reach.black)}.`;
        case 'search':
            return proof.positions
                ? `all ${proof.positions.toLocaleString('en-US')} ` +
                  'positions that can still arise were examined, and none ' +
                  `is a checkmate by ${c ? colorName(c) : 'either side'}.`
                : 'every position that can still arise was examined, and ' +
                  `none is a checkmate by ${c ? colorName(c) : 'either side'}.`;
        default:
            return 'proven by the server.';
        }
    };
    if (sides.length === 2 && proof.white === proof.black)
        return [`Neither side can checkmate: ${why(proof.white, null)}`];
    return sides.map((c) => `${colorName(c)} cannot checkmate: ${
        why(proof[c], c)}`);
}

const ERRORS = {
    bad_json: 'The server could not read a message from this page.',
    bad_field: 'The server refused a request',
    unknown_type: 'The server did not understand a request from this page.',
    unauthenticated: 'Not signed in yet. Please wait a moment.',
    bad_token: 'Your saved identity was not recognised; you are playing as ' +
               'a new guest.',
    no_such_game: 'There is no such game. The link may be mistyped or ' +
                  'expired.',
    not_a_player: 'You are not playing in this game.',
    not_started: 'The game has not started yet.',
    game_over: 'This game is over.',
    stale_ply: 'The position had changed; the board is up to date now.',
    not_your_turn: 'It is not your turn.',
    illegal_move: 'That move is not legal.',
    bad_clock: 'That time control is not allowed',
    claim_rejected: 'A draw cannot be claimed now.',
    seat_taken: 'Someone else already joined this game.',
    own_game: 'This is your own invitation: send the link to a friend.',
    no_draw_offer: 'There is no draw offer to answer.',
    draw_too_early: 'No draw offers before move 30 in a Swiss game.',
    abort_not_allowed: 'Too late to abort: both sides have moved.',
    no_seek: 'You are not looking for a game.',
    rate_limited: 'Slow down: too many requests in a short time.',
    too_many_games: 'You have too many games, invitations and seeks open: ' +
                    'finish or cancel some first.',
    no_rematch: 'No rematch of this game is possible',
    rated_needs_account: 'Rated games are for accounts: sign up or log ' +
                         'in first.',
    needs_account: 'Only an account stores its settings on the server: ' +
                   'sign up or log in.',
    bad_username: 'Usernames are 2 to 20 letters, digits, _ or -.',
    name_taken: 'That username is taken: choose another one.',
    weak_password: 'The password is too short: use at least 8 characters.',
    already_registered: 'You already have an account: this player is ' +
                        'signed up.',
    bad_credentials: 'Wrong username or password.',
    no_such_seek: 'That seek is gone: someone else took it, or its player ' +
                  'cancelled it.',
    rating_out_of_range: 'That seek is for players of other ratings',
    address_full: 'Too many games are being played from this network ' +
                  'address: finish some first.',
    server_full: 'The server is full: try again later.',
    busy: 'The computer is busy with other games: try again in a moment.',
    no_engine: 'This server has no computer to play against.',
    nothing_to_take_back: 'Nothing to take back: both sides must have ' +
                          'moved.',
    no_takeback_request: 'There is no takeback request to answer.',
    takeback_declined: 'Your takeback request was declined: ask again ' +
                       'after a move.',
    takeback_not_allowed: 'Takebacks are off in this game (a player\'s ' +
                          'preference).',
    give_time_not_allowed: 'Time cannot be given in this game now',
    berserk_refused: 'No berserk',
    condition_not_met: 'You may not join this tournament',
    no_such_player: 'Nobody of that name is online',
    no_such_challenge: 'That challenge is no longer pending.',
    too_many_challenges: 'Too many pending challenges',
    challenge_unavailable: 'This server does not take challenges: send ' +
                           'an invitation link instead.',
    give_time_capped: 'You have given all the time a game allows (60 s).',
    chat_not_allowed: 'You cannot chat here',
    muted: 'You are muted for a while after too many chat lines',
    blocked: 'A block keeps you apart',
    too_many_blocks: 'You block as many players as there may be',
    already_reported: 'You reported this player less than a day ago',
};

// The same for the answers to `register` and `login`: a refusal there is
// about the attempt (too many of them), not about requests in general.
export function accountErrorText(code, msg) {
    if (code === 'rate_limited')
        return /busy/i.test(msg || '')
            ? 'The server is busy checking passwords: try again in a moment.'
            : 'Too many attempts: wait a minute, then try again.';
    return errorText(code, msg);
}

// A short human sentence for a server error; for the codes whose server
// text says what exactly was wrong, that text is added.
export function errorText(code, msg) {
    const base = ERRORS[code];
    if (!base)
        return msg ? `Error: ${msg}` : `Error (${code}).`;
    const full = (code === 'bad_field' || code === 'bad_clock' ||
                  code === 'no_rematch' || code === 'rating_out_of_range' ||
                  code === 'give_time_not_allowed' ||
                  code === 'no_such_player' ||
                  code === 'too_many_challenges' ||
                  code === 'chat_not_allowed' || code === 'blocked' ||
                  code === 'berserk_refused' ||
                  code === 'condition_not_met') &&
        msg ? `${base}: ${msg}` : base;
    // (one game against the computer at a time: the server says so)
    if (code === 'too_many_games' && /computer/.test(msg || ''))
        return 'You are playing the computer already: finish that game ' +
            'first.';
    return /[.!?]$/.test(full) ? full : `${full}.`;
}

const REASON_SHORT = {
    checkmate: 'Checkmate',
    resignation: 'Resignation',
    abandoned: 'Left the game',
    timeout: 'Time',
    timeout_vs_insufficient: 'Time, insufficient material',
    stalemate: 'Stalemate',
    dead_position: 'Dead position',
    fivefold: 'Fivefold repetition',
    seventy_five_moves: '75-move rule',
    threefold: 'Threefold repetition',
    fifty_moves: '50-move rule',
    agreement: 'Agreement',
    aborted: 'Aborted',
    adjudicated: 'Moderator',
    adjudicated_draw: 'Moderator',
    no_start: 'Not started',
    cancelled: 'Cancelled',
};

// The reason of a game's end in a word or two, for lists of games.
export function reasonShort(reason) {
    return REASON_SHORT[reason] || (reason ? String(reason) : '');
}

// A finished game's result from one player's side ('white' or 'black'):
// 'Won', 'Lost', 'Draw' (or 'Aborted').
export function outcome(result, color) {
    if (result === '1/2-1/2')
        return 'Draw';
    if (result === '1-0' || result === '0-1')
        return (result === '1-0') === (color === 'white') ? 'Won' : 'Lost';
    return 'Aborted';
}

// Why a rematch offer ended (PROTOCOL.md section 7: rematch_declined),
// from the point of view of `you`. `by` is the colour in the message (who
// declined or left; null when it expired), `offerer` the colour whose offer
// it was (null when the page did not see the offer).
export function rematchEndText(reason, by, offerer, you) {
    const mine = by === you;
    switch (reason) {
    case 'declined':
        if (!offerer)
            return mine ? 'You ended the rematch offer.'
                : 'Your opponent ended the rematch offer.';
        if (by === offerer)
            return mine ? 'You withdrew your rematch offer.'
                : 'Your opponent withdrew the rematch offer.';
        return mine ? 'You declined the rematch.'
            : 'Your opponent declined the rematch.';
    case 'left':
        return mine ? 'You left the game: the rematch offer lapsed.'
            : 'Your opponent left: the rematch offer lapsed.';
    case 'expired':
        return 'The rematch offer expired.';
    default:
        return 'The rematch offer ended.';
    }
}

// Rating categories (PROTOCOL.md section 5), in the order pages list them.
export const CATEGORIES = ['bullet', 'blitz', 'rapid', 'classical',
                           'per_move'];

const CATEGORY_NAMES = { bullet: 'Bullet', blitz: 'Blitz', rapid: 'Rapid',
                         classical: 'Classical', per_move: 'Per move' };

// 'per_move' -> 'Per move'.
export function categoryName(category) {
    return CATEGORY_NAMES[category] || category;
}

// A rating as shown beside a name: 1500, or 1500? while provisional.
export function ratingText(rating, provisional) {
    return `${rating}${provisional ? '?' : ''}`;
}

// A rating change: +12, -7 (a true minus sign), ±0.
export function ratingDiff(before, after) {
    const d = after - before;
    return d > 0 ? `+${d}` : d < 0 ? `\u2212${-d}` : '\u00b10';
}

export const RATED_NEEDS_ACCOUNT = 'Rated games need an account: sign up ' +
    'or log in.';

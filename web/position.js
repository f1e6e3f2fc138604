// position.js - piece placement for display: FEN parsing and replaying the
// server's own UCI moves to show earlier positions of a game.
//
// This is NOT rules code: it never decides whether a move is legal. Legal
// moves come only from the server's `legal` list; the live position always
// comes from the server's `fen`. Replaying is needed only to draw positions
// the server sent as a move list (browsing back through a game).

export const FILES = 'abcdefgh';

// Square index 0..63 with a1 = 0, h1 = 7, a8 = 56.
export function squareIndex(name) {
    return (name.charCodeAt(1) - 49) * 8 + (name.charCodeAt(0) - 97);
}

export function squareName(index) {
    return FILES[index % 8] + String(Math.floor(index / 8) + 1);
}

// Parses a FEN into {board, turn}: board is an array of 64 piece codes
// ('wP', 'bK', ...) or null. Throws on a malformed placement field.
export function parseFen(fen) {
    const fields = String(fen).trim().split(/\s+/);
    const rows = fields[0].split('/');
    if (rows.length !== 8)
        throw new Error('bad FEN: ' + fen);
    const board = new Array(64).fill(null);
    rows.forEach((row, i) => {
        const rank = 7 - i;
        let file = 0;
        for (const ch of row) {
            if (ch >= '1' && ch <= '8') {
                file += Number(ch);
            } else if ('pnbrqkPNBRQK'.includes(ch)) {
                if (file > 7)
                    throw new Error('bad FEN: ' + fen);
                const color = ch === ch.toUpperCase() ? 'w' : 'b';
                board[rank * 8 + file] = color + ch.toUpperCase();
                file += 1;
            } else {
                throw new Error('bad FEN: ' + fen);
            }
        }
        if (file !== 8)
            throw new Error('bad FEN: ' + fen);
    });
    return { board, turn: fields[1] === 'b' ? 'b' : 'w' };
}

// Returns a new board with the server-accepted UCI move applied: the piece
// moves, a king's two-square move brings its rook along, a pawn moving
// diagonally onto an empty square removes the pawn it passed, and a
// promotion letter replaces the pawn.
export function applyUci(board, uci) {
    const next = board.slice();
    const from = squareIndex(uci.slice(0, 2));
    const to = squareIndex(uci.slice(2, 4));
    const piece = next[from];
    if (!piece)
        return next;
    const df = (to % 8) - (from % 8);
    if (piece[1] === 'K' && Math.abs(df) === 2) {
        const rank = Math.floor(from / 8) * 8;
        const rookFrom = rank + (df > 0 ? 7 : 0);
        const rookTo = rank + (df > 0 ? 5 : 3);
        next[rookTo] = next[rookFrom];
        next[rookFrom] = null;
    }
    if (piece[1] === 'P' && df !== 0 && !next[to])
        next[Math.floor(from / 8) * 8 + (to % 8)] = null;
    next[from] = null;
    next[to] = uci.length > 4 ? piece[0] + uci[4].toUpperCase() : piece;
    return next;
}

// The FEN of position `ply` (0 = the start) of a game started from
// `initialFen` with the server's UCI `moves`, for copying a position the
// player browsed back to (the live position's FEN is always the
// server's): the placement as applyUci replays it, the side to move, the
// initial castling rights less those a king or rook move, or a capture on
// a rook's square, took, the square behind a pawn that just moved two
// squares when an enemy pawn stands beside it (the server names it only
// when that capture is legal: a pinned pawn is the one difference), and
// the two move counters.
export function fenAt(initialFen, moves, ply) {
    const f = String(initialFen).trim().split(/\s+/);
    let { board, turn } = parseFen(initialFen);
    let castling = f[2] || '-';
    let halfmove = Number(f[4]) || 0;
    let fullmove = Number(f[5]) || 1;
    let ep = '-';
    for (let i = 0; i < ply && i < moves.length; i++) {
        const from = squareIndex(moves[i].slice(0, 2));
        const to = squareIndex(moves[i].slice(2, 4));
        const piece = board[from] || '';
        const pawn = piece[1] === 'P';
        const capture = !!board[to] || (pawn && from % 8 !== to % 8);
        halfmove = pawn || capture ? 0 : halfmove + 1;
        castling = castlingAfter(castling, piece, from, to);
        board = applyUci(board, moves[i]);
        ep = '-';
        const enemy = piece[0] === 'w' ? 'bP' : 'wP';
        if (pawn && Math.abs(to - from) === 16 &&
            ((to % 8 > 0 && board[to - 1] === enemy) ||
             (to % 8 < 7 && board[to + 1] === enemy)))
            ep = squareName((from + to) / 2);
        if (turn === 'b')
            fullmove++;
        turn = turn === 'w' ? 'b' : 'w';
    }
    return `${placement(board)} ${turn} ${castling} ${ep} ${halfmove} ${
        fullmove}`;
}

// The castling rights `rights` ("KQkq", "-") after `piece` moved from
// `from` to `to`: a king's move loses both of its side, a move from or to
// a rook's corner that corner's.
function castlingAfter(rights, piece, from, to) {
    const lost = { 0: 'Q', 7: 'K', 56: 'q', 63: 'k' };
    let drop = (lost[from] || '') + (lost[to] || '');
    if (piece === 'wK')
        drop += 'KQ';
    if (piece === 'bK')
        drop += 'kq';
    const left = [...rights].filter((c) => c !== '-' && !drop.includes(c))
        .join('');
    return left || '-';
}

// The placement field of a FEN from a board of 64 piece codes.
function placement(board) {
    const rows = [];
    for (let rank = 7; rank >= 0; rank--) {
        let row = '';
        let empty = 0;
        for (let file = 0; file < 8; file++) {
            const code = board[rank * 8 + file];
            if (!code) {
                empty++;
                continue;
            }
            if (empty)
                row += empty;
            empty = 0;
            row += code[0] === 'w' ? code[1] : code[1].toLowerCase();
        }
        rows.push(empty ? row + empty : row);
    }
    return rows.join('/');
}

// The square of `color`'s king ('w' or 'b'), or -1.
export function kingSquare(board, color) {
    return board.indexOf(color + 'K');
}

const MATERIAL_VALUES = { P: 1, N: 3, B: 3, R: 5, Q: 9 };
const MATERIAL_ORDER = ['Q', 'R', 'B', 'N', 'P'];

// The material difference of `board` (parseFen's board), as lichess shows
// it: for each kind of piece, the side with more of them is "up" the extra
// ones (so a promotion or a set-up position needs no captured list).
// Returns { white: { up: ['N', 'P'...], score }, black: {...} }: the kinds
// each side is up by, queens first, one letter per piece, and score the
// side's lead in points (P 1, N 3, B 3, R 5, Q 9; 0 when not ahead).
export function materialDiff(board) {
    const count = { w: {}, b: {} };
    for (const code of board) {
        if (code && code[1] !== 'K')
            count[code[0]][code[1]] = (count[code[0]][code[1]] || 0) + 1;
    }
    const out = { white: { up: [], score: 0 }, black: { up: [], score: 0 } };
    let points = 0;
    for (const kind of MATERIAL_ORDER) {
        const d = (count.w[kind] || 0) - (count.b[kind] || 0);
        const side = d > 0 ? out.white : out.black;
        for (let i = 0; i < Math.abs(d); i++)
            side.up.push(kind);
        points += d * MATERIAL_VALUES[kind];
    }
    out.white.score = Math.max(0, points);
    out.black.score = Math.max(0, -points);
    return out;
}

// The move that led to position `ply` (1 and up) of a game started from
// `initialFen`: { no, white } with its move number and whether White made
// it (so ply 12 from the usual start is { no: 6, white: false }, "6…").
export function moveNumber(initialFen, ply) {
    const fields = String(initialFen).trim().split(/\s+/);
    const blackFirst = fields[1] === 'b';
    const startNo = Number(fields[5]) || 1;
    const h = ply - 1 + (blackFirst ? 1 : 0);
    return { no: startNo + Math.floor(h / 2), white: h % 2 === 0 };
}

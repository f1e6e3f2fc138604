// keymove.js - moves typed on the keyboard, as lichess's keyboard move
// input: SAN ("Nf3", "e4", "exd5", "O-O", "e8=Q"), with or without the
// capture's x, check signs or the promotion's =, and UCI ("g1f3",
// "e7e8q"). A typed move is matched against the moves the board offers
// now (the server's legal list on our turn, the candidate premoves on the
// opponent's: gameboard.js movesNow), never checked by rules of its own.
//
// It is played as soon as the text names exactly one of them and cannot
// grow into another (so "f3" waits while a piece stands on f3: "f3g5"
// may follow), or on Enter; Enter takes a queen for a promotion left
// unsaid. matchMove() is DOM-free so node can test it.

import { squareIndex } from './position.js';

const $ = (id) => document.getElementById(id);
const SAN = /^([NBRQK])?([a-h])?([1-8])?(x)?([a-h][1-8])(?:=?([NBRQ]))?$/;
const UCI = /^([a-h][1-8])([a-h][1-8])([nbrq])?$/;

// The moves of `legal` (UCI) that `text` names on `board` (64 codes such
// as 'wN', or null). Returns { moves: [UCI...], complete } where complete
// says no longer text could name another of them.
export function matchMove(text, board, legal) {
    let t = String(text || '').trim().replace(/[+#!?]+$/, '');
    if (!t)
        return { moves: [], complete: false };
    const castle = t.replace(/0/g, 'O').toUpperCase().replace(/-/g, '');
    if (castle === 'OO' || castle === 'OOO') {
        const file = castle === 'OOO' ? 'c' : 'g';
        const moves = legal.filter((u) => {
            const from = board[squareIndex(u.slice(0, 2))];
            return from && from[1] === 'K' && u[0] === 'e' && u[2] === file;
        });
        // (O-O may still become O-O-O)
        return { moves, complete: castle === 'OOO' };
    }
    const uci = t.toLowerCase().match(UCI);
    if (uci) {
        const moves = legal.filter((u) => u.startsWith(uci[0]));
        if (moves.length)
            return { moves, complete: !!uci[3] || moves.length === 1 };
    }
    // a piece letter may be typed in lower case, but b is a file
    if (/^[nrqk]/.test(t))
        t = t[0].toUpperCase() + t.slice(1);
    t = t.replace(/([a-h][1-8])=?([nbrq])$/,
                  (m, to, p) => `${to}=${p.toUpperCase()}`);
    const m = t.match(SAN);
    if (!m)
        return { moves: [], complete: false };
    const [, piece, file, rank, , to, promo] = m;
    const moves = legal.filter((u) => {
        const code = board[squareIndex(u.slice(0, 2))];
        if (!code || u.slice(2, 4) !== to)
            return false;
        if (code[1] !== (piece || 'P'))
            return false;
        if (file && u[0] !== file)
            return false;
        if (rank && u[1] !== rank)
            return false;
        return promo ? u[4] === promo.toLowerCase() : true;
    });
    // "f3" may be the start of f3g5 while a move starts on f3
    const prefix = !piece && !file && !rank && !promo &&
        legal.some((u) => u.startsWith(to));
    return { moves, complete: !prefix && (!!promo || moves.length === 1) };
}

export class KeyMove {
    // view: the GameView; its play (GameBoard) offers the moves and
    // playMove plays one.
    constructor(view) {
        this.view = view;
        this.form = $('keymove');
        this.input = $('keymove-input');
        this.note = $('keymove-note');
        this.input.addEventListener('input', () => this.typed(false));
        this.form.addEventListener('submit', (e) => {
            e.preventDefault();
            this.typed(true);
        });
        // the arrows browse the moves from everywhere but a text field:
        // Escape leaves this one for the board
        this.input.addEventListener('keydown', (e) => {
            if (e.key === 'Escape') {
                this.input.value = '';
                this.say('');
            }
        });
    }

    say(text) {
        if (this.note.textContent !== text)
            this.note.textContent = text;
    }

    // The text changed (enter: Enter was pressed).
    typed(enter) {
        const text = this.input.value;
        const now = this.view.play.movesNow();
        if (!text.trim()) {
            this.say('');
            return;
        }
        if (!now) {
            if (enter)
                this.say('No move can be played now.');
            return;
        }
        const { moves, complete } = matchMove(text, now.board, now.legal);
        let uci = moves.length === 1 ? moves[0] : null;
        if (!uci && enter && moves.length > 1 &&
            moves.every((u) => u.slice(0, 4) === moves[0].slice(0, 4)))
            uci = moves.find((u) => u[4] === 'q') || null;
        if (uci && (complete || enter)) {
            this.input.value = '';
            this.say('');
            this.view.playMove(uci);
            return;
        }
        if (enter)
            this.say(moves.length > 1
                ? `Which one? ${moves.map((u) => `${u.slice(0, 2)}-${
                    u.slice(2)}`).join(', ')}`
                : `${text.trim()} is not a move here.`);
        else
            this.say('');
    }

    // Shows the field to a player of a game being played.
    render() {
        const g = this.view.g;
        const show = !!(g && g.you && g.status === 'started');
        this.form.hidden = !show;
        if (!show && this.input.value) {
            this.input.value = '';
            this.say('');
        }
    }
}

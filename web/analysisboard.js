// analysisboard.js - the analysis board at /analysis: a position or a
// game's moves as a tree, variations entered by moving pieces, navigation
// by keys (arrows, Home, End) and by clicks, the current FEN to copy,
// flip, arrows and circles drawn with the right mouse button (each
// position its own), a PGN or a FEN pasted to open it, and "continue
// from here" against the computer or a friend (the lobby's form with the
// FEN filled in). Loaded the first time /analysis is opened
// (static.test.mjs: the lobby's visits never fetch it).
//
// It knows no rules: each position's legal moves, their SAN and the FEN
// each leads to come from the server (POST /api/board/fen, PROTOCOL.md
// section 9, "Analysis board"), a PGN's tree from POST /api/board/pgn.
// /analysis?game=GID opens a game's PGN (GET /api/games/GID/pgn),
// /analysis?fen=FEN a position. Nothing is stored.

import { Board } from './board.js';
import { Shapes } from './arrows.js';
import { copyText } from './copy.js';
import { parseFen, squareIndex } from './position.js';
import { el } from './ratings.js';

const $ = (id) => document.getElementById(id);
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
// The body's limit (PROTOCOL.md: POST bodies of at most 4096 bytes).
const TEXT_MAX = 4096;
// A position's legal moves are asked for once it has been shown this
// long (holding an arrow key does not spend the address's API budget).
const LEGAL_DELAY_MS = 120;

async function post(path, text) {
    const r = await fetch(path, { method: 'POST', body: text,
                                  headers: { 'Content-Type': 'text/plain' } });
    let body = null;
    try {
        body = await r.json();
    } catch {
        body = null;
    }
    return { ok: r.ok, status: r.status, body };
}

// The PGN without its comments ({...} and ; to the end of the line),
// each replaced by the line ends it held so that the server's line
// numbers stay those of the text pasted: a game exported with its clocks
// and evaluations may be over the body's limit with them, and the board
// shows no comments. Tag lines are left as they are.
function stripComments(text) {
    let out = '', i = 0;
    while (i < text.length) {
        const c = text[i];
        const lineStart = i === 0 || text[i - 1] === '\n';
        if (lineStart && c === '[') {         /* a tag pair: its line whole */
            const end = text.indexOf('\n', i);
            const stop = end < 0 ? text.length : end;
            out += text.slice(i, stop);
            i = stop;
        } else if (c === '{') {
            const end = text.indexOf('}', i);
            if (end < 0)                       /* unclosed: the server says */
                return out + text.slice(i);
            out += ' ' + '\n'.repeat(
                text.slice(i, end).split('\n').length - 1);
            i = end + 1;
        } else if (c === ';') {
            const end = text.indexOf('\n', i);
            i = end < 0 ? text.length : end;
        } else {
            out += c;
            i++;
        }
    }
    return out;
}

// A FEN rather than a PGN: one line, six fields, a placement of 8 ranks.
function looksLikeFen(text) {
    return !text.includes('\n') && /^[1-8pnbrqkPNBRQK]+(\/[1-8pnbrqkPNBRQK]+){7}\s/
        .test(text);
}

export class AnalysisBoardView {
    // ctx: app.js's (navigate, toast, announce).
    constructor(ctx) {
        this.ctx = ctx;
        this.section = $('aboard');
        this.legal = new Map();   /* FEN -> the server's answer */
        this.legalTimer = 0;
        this.orientation = 'white';
        this.build();
        this.reset(START);
        document.addEventListener('keydown', (e) => this.key(e));
    }

    build() {
        const title = el('h1', 'sr-only', 'Analysis board');
        title.id = 'aboard-title';
        const wrap = el('div', 'board-wrap');
        const root = el('div');
        root.id = 'aboard-board';
        wrap.append(root);
        const play = el('div', 'play-area');
        play.append(title, wrap);
        this.board = new Board(root, (uci) => this.play(uci));
        this.shapes = new Shapes(this.board, 'user');
        this.shapes.listen();
        // each position keeps its own drawing, as on lichess
        this.shapes.onChange = (s) => { this.nodes[this.cur].shapes = s; };
        this.bestShapes = null;

        const side = el('div', 'side aboard-side');
        this.status = el('p', 'status');
        this.status.id = 'aboard-status';
        this.status.setAttribute('role', 'status');
        this.tree = el('div', 'aboard-tree');
        this.tree.id = 'aboard-tree';
        this.tree.setAttribute('aria-label', 'Moves and variations');
        this.tree.setAttribute('role', 'group');
        const nav = el('div', 'nav');
        nav.setAttribute('role', 'group');
        nav.setAttribute('aria-label', 'Browse the moves');
        const button = (id, text, label, run) => {
            const b = el('button', null, text);
            b.type = 'button';
            b.id = id;
            b.title = label;
            if (text.length === 1)   /* a symbol: its name in words */
                b.setAttribute('aria-label', label);
            b.addEventListener('click', run);
            return b;
        };
        nav.append(
            button('aboard-first', '«', 'First position (Home)',
                   () => this.go(0)),
            button('aboard-prev', '‹', 'Previous move (←)', () => this.back()),
            button('aboard-next', '›', 'Next move (→)', () => this.forward()),
            button('aboard-last', '»', 'End of the line (End)',
                   () => this.go(this.lineEnd(this.cur))),
            button('aboard-flip', '⇅', 'Flip the board (f)', () => this.flip()));

        // the line shown: made the main line, or taken out of the tree
        const edit = el('div', 'aboard-edit');
        this.promoteBtn = button('aboard-promote', 'Make main line',
                                 'Make the line shown the main line',
                                 () => this.promote());
        this.deleteBtn = button('aboard-delete', 'Delete from here',
                                'Delete this move and what follows it',
                                () => this.remove());
        edit.append(this.promoteBtn, this.deleteBtn);

        const fenRow = el('div', 'copy-row');
        this.fen = el('input');
        this.fen.id = 'aboard-fen';
        this.fen.readOnly = true;
        this.fen.setAttribute('aria-label', 'FEN of the position shown');
        fenRow.append(this.fen, button('aboard-copy-fen', 'Copy FEN',
                                       'Copy the FEN of the position shown',
                                       () => this.copyFen()));

        const cont = el('p', 'aboard-continue');
        this.vsComputer = el('a', 'button', 'Play the computer from here');
        this.vsComputer.id = 'aboard-computer';
        this.vsFriend = el('a', 'button', 'Invite a friend from here');
        this.vsFriend.id = 'aboard-friend';
        cont.append(this.vsComputer, ' ', this.vsFriend);

        const form = el('form', 'aboard-import');
        form.noValidate = true;
        const label = el('label', null, 'Paste a PGN or a FEN');
        label.htmlFor = 'aboard-text';
        this.text = el('textarea');
        this.text.id = 'aboard-text';
        this.text.rows = 4;
        this.text.spellcheck = false;
        this.error = el('p', 'aboard-error');
        this.error.id = 'aboard-error';
        this.error.setAttribute('role', 'alert');
        this.text.setAttribute('aria-describedby', 'aboard-error');
        const open = el('button', 'primary', 'Open');
        open.type = 'submit';
        open.id = 'aboard-open';
        form.append(label, this.text, open, this.error);
        form.addEventListener('submit', (e) => {
            e.preventDefault();
            this.open(this.text.value);
        });
        this.head = el('p', 'aboard-head');
        this.head.id = 'aboard-head';
        side.append(this.head, this.status, this.tree, nav, edit, fenRow,
                    cont, form);
        this.section.append(play, side);
    }

    // Opens /analysis with its query: ?game=GID, ?fen=FEN, or the start.
    async show(params) {
        this.section.hidden = false;
        document.title = 'Analysis board · Chess';
        const gid = params.get('game'), fen = params.get('fen');
        if (gid) {
            try {
                const r = await fetch(`/api/games/${
                    encodeURIComponent(gid)}/pgn`);
                if (!r.ok)
                    throw new Error(String(r.status));
                await this.open(await r.text());
                this.go(this.lineEnd(0));   /* as the game ended */
            } catch {
                this.fail('That game could not be read.');
            }
        } else if (fen) {
            await this.open(fen);
        } else {
            this.render();
        }
    }

    hide() {
        this.section.hidden = true;
    }

    // The tree of a position alone.
    reset(fen) {
        this.nodes = [{ id: 0, parent: -1, children: [], fen, san: '',
                        uci: '' }];
        this.cur = 0;
    }

    fail(message) {
        this.error.textContent = message;
    }

    // Opens a pasted PGN or FEN; a bad one is named, the board unchanged.
    async open(raw) {
        let text = raw.trim();
        this.fail('');
        if (!text) {
            this.fail('Paste a PGN or a FEN first.');
            return;
        }
        const fen = looksLikeFen(text);
        const size = (x) => new TextEncoder().encode(x).length;
        const bytes = size(text);
        if (!fen && bytes > TEXT_MAX)
            text = stripComments(text);
        if (size(text) > TEXT_MAX) {
            this.fail(`The text has ${size(text)} bytes without its ` +
                      `comments (${bytes} with them); the board reads at ` +
                      `most ${TEXT_MAX}. Remove some variations.`);
            return;
        }
        let r;
        try {
            r = await post(fen ? '/api/board/fen' : '/api/board/pgn', text);
        } catch {
            this.fail('The server could not be reached. Try again.');
            return;
        }
        if (!r.ok || !r.body || r.body.error) {
            const what = r.body && r.body.message ? r.body.message
                : r.status === 429 ? 'Too many requests: wait a moment.'
                    : `The server answered ${r.status}.`;
            this.fail(fen ? `FEN: ${what}` : `PGN: ${
                what.charAt(0).toUpperCase()}${what.slice(1)}`);
            return;
        }
        this.head.textContent = fen ? '' : this.headText(r.body);
        if (fen) {
            this.reset(r.body.fen);
            this.legal.set(r.body.fen, r.body);
        } else {
            this.reset(r.body.start);
            const base = this.nodes.length;
            for (const n of r.body.nodes) {
                const id = this.nodes.length;
                const parent = n.parent < 0 ? 0 : n.parent + base;
                this.nodes.push({ id, parent, children: [], fen: n.fen,
                                  san: n.san, uci: n.uci });
                this.nodes[parent].children.push(id);
            }
        }
        this.shapes.set([]);
        this.render();
        this.ctx.announce(fen ? 'Position opened.' : 'Game opened.');
    }

    // "White – Black, 1-0" from a PGN's tags ('' without names).
    headText(t) {
        const name = (tag) => t.tags[tag] && t.tags[tag] !== '?'
            ? t.tags[tag] : null;
        const w = name('White'), b = name('Black');
        if (!w && !b)
            return '';
        const res = t.result && t.result !== '*' ? `, ${t.result}` : '';
        return `${w || '?'} – ${b || '?'}${res}`;
    }

    // ---- navigation ----------------------------------------------------

    go(id) {
        if (id === this.cur || id < 0 || id >= this.nodes.length)
            return;
        this.cur = id;
        this.shapes.set(this.nodes[id].shapes || []);
        this.render();
    }

    back() {
        this.go(this.nodes[this.cur].parent);
    }

    forward() {
        const c = this.nodes[this.cur].children;
        if (c.length)
            this.go(c[0]);
    }

    lineEnd(id) {
        while (this.nodes[id].children.length)
            id = this.nodes[id].children[0];
        return id;
    }

    // Puts the line of the move shown first at every fork above it.
    promote() {
        for (let id = this.cur; id > 0; id = this.nodes[id].parent) {
            const c = this.nodes[this.nodes[id].parent].children;
            c.splice(c.indexOf(id), 1);
            c.unshift(id);
        }
        this.render();
    }

    // Takes the move shown and its continuations out of the tree.
    remove() {
        const node = this.nodes[this.cur];
        if (node.parent < 0)
            return;
        const c = this.nodes[node.parent].children;
        c.splice(c.indexOf(node.id), 1);
        this.go(node.parent);
    }

    // True when the move shown is off the main line.
    inVariation() {
        for (let id = this.cur; id > 0; id = this.nodes[id].parent)
            if (this.nodes[this.nodes[id].parent].children[0] !== id)
                return true;
        return false;
    }

    flip() {
        this.orientation = this.orientation === 'white' ? 'black' : 'white';
        this.render();
        this.shapes.draw();
    }

    key(e) {
        if (this.section.hidden || e.altKey || e.ctrlKey || e.metaKey)
            return;
        const t = e.target;
        if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'INPUT' ||
                  t.isContentEditable))
            return;
        const act = {
            ArrowLeft: () => this.back(),
            ArrowRight: () => this.forward(),
            Home: () => this.go(0),
            End: () => this.go(this.lineEnd(this.cur)),
            f: () => this.flip(),
        }[e.key];
        // the board's own arrow keys move its focus between squares
        if (!act || (t && t.closest && t.closest('#aboard-board') &&
                     e.key.startsWith('Arrow')))
            return;
        e.preventDefault();
        act();
    }

    // ---- moves ---------------------------------------------------------

    // A move made on the board: its node when the tree has it, else a
    // new variation (the main line when the position had no move yet).
    play(uci) {
        const node = this.nodes[this.cur];
        const known = node.children.find((c) => this.nodes[c].uci === uci);
        if (known !== undefined) {
            this.go(known);
            return;
        }
        const pos = this.legal.get(node.fen);
        const m = pos && pos.moves.find((x) => x.uci === uci);
        if (!m)
            return;
        const id = this.nodes.length;
        this.nodes.push({ id, parent: node.id, children: [], fen: m.fen,
                          san: m.san, uci });
        node.children.push(id);
        this.go(id);
    }

    // Asks for the legal moves of the position shown, once it stays.
    askLegal(fen) {
        clearTimeout(this.legalTimer);
        if (this.legal.has(fen))
            return;
        this.legalTimer = setTimeout(async () => {
            const r = await post('/api/board/fen', fen).catch(() => null);
            if (r && r.ok && r.body && r.body.moves) {
                this.legal.set(fen, r.body);
                if (this.legal.size > 500)
                    this.legal.delete(this.legal.keys().next().value);
                if (this.nodes[this.cur].fen === fen)
                    this.render();
            } else if (r && r.status === 429 &&
                       this.nodes[this.cur].fen === fen) {
                this.askLegal(fen);   /* the bucket refills: again */
            }
        }, LEGAL_DELAY_MS);
    }

    async copyFen() {
        const fen = this.nodes[this.cur].fen;
        this.ctx.toast(await copyText(fen) ? 'FEN copied.'
            : 'The FEN could not be copied: select it and copy it.');
    }

    // ---- drawing -------------------------------------------------------

    render() {
        const node = this.nodes[this.cur];
        const pos = this.legal.get(node.fen);
        const { board, turn } = parseFen(node.fen);
        const last = node.uci ? [squareIndex(node.uci.slice(0, 2)),
                                 squareIndex(node.uci.slice(2, 4))] : null;
        let check = -1;
        if (pos && pos.check)
            check = board.indexOf(`${turn}K`);
        this.board.set({
            board, orientation: this.orientation, lastMove: last, check,
            interactive: !!pos, legal: pos ? pos.moves.map((m) => m.uci) : [],
        });
        this.askLegal(node.fen);
        const side = turn === 'w' ? 'White' : 'Black';
        this.status.textContent = !pos ? `${side} to move`
            : pos.status === 'checkmate' ? `Checkmate: ${
                turn === 'w' ? 'Black' : 'White'} wins`
                : pos.status === 'stalemate' ? 'Stalemate: a draw'
                    : `${side} to move`;
        this.fen.value = node.fen;
        this.promoteBtn.disabled = !this.inVariation();
        this.deleteBtn.disabled = this.cur === 0;
        const q = encodeURIComponent(node.fen);
        this.vsComputer.href = `/?with=computer&fen=${q}`;
        this.vsFriend.href = `/?with=friend&fen=${q}`;
        this.renderTree();
    }

    // The moves: the main line, each variation in brackets after the move
    // it replaces, the move shown marked.
    renderTree() {
        const out = [];
        this.line(0, out, true);
        if (!out.length)
            out.push(el('p', 'aboard-empty',
                        'Make a move on the board or paste a game.'));
        this.tree.replaceChildren(...out);
        const cur = this.tree.querySelector('[aria-current="true"]');
        if (cur)
            cur.scrollIntoView({ block: 'nearest' });
    }

    line(from, out, numbered) {
        let p = from, number = numbered;
        while (this.nodes[p].children.length) {
            const [main, ...alts] = this.nodes[p].children;
            out.push(this.moveButton(main, number));
            number = false;
            for (const v of alts) {
                const box = el('span', 'aboard-var');
                const inner = [this.moveButton(v, true)];
                this.line(v, inner, false);
                box.append('(', ...inner, ')');
                out.push(box);
                number = true;
            }
            p = main;
        }
    }

    moveButton(id, numbered) {
        const n = this.nodes[id];
        const parent = parseFen(this.nodes[n.parent].fen);
        const full = Number(this.nodes[n.parent].fen.split(/\s+/)[5]) || 1;
        const white = parent.turn === 'w';
        const no = white ? `${full}.` : numbered ? `${full}…` : '';
        const b = el('button', 'aboard-move', no ? `${no} ${n.san}` : n.san);
        b.type = 'button';
        b.dataset.node = String(id);
        b.setAttribute('aria-current', String(id === this.cur));
        b.setAttribute('aria-label', `${full}${white ? '.' : '…'} ${n.san}`);
        b.addEventListener('click', () => this.go(id));
        return b;
    }
}

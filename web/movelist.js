// movelist.js - the game page's list of moves and the browsing through
// them: a move clicked in the list, the buttons under it and the arrow,
// Home and End keys show an earlier position; the last move or End goes
// back to the live one. The list keeps the move shown in view, also when
// something beside it (the end panel) takes its room; a finished game's
// score ends it.

import * as W from './words.js';

const $ = (id) => document.getElementById(id);

export class MoveList {
    // view: the GameView whose game's moves the list shows.
    constructor(view) {
        this.view = view;
        $('nav-first').addEventListener('click', () => this.browse(0));
        $('nav-prev').addEventListener('click', () => this.browse(-1, true));
        $('nav-next').addEventListener('click', () => this.browse(1, true));
        $('nav-last').addEventListener('click', () => this.browse(null));
        $('moves').addEventListener('click', (e) => {
            const b = e.target.closest('button[data-ply]');
            if (b)
                this.browse(Number(b.dataset.ply));
        });
        document.addEventListener('keydown', (e) => this.keyDown(e));
        // (the end panel or a toast takes the list's room: the move shown
        // stays in view)
        if (typeof ResizeObserver === 'function')
            new ResizeObserver(() => this.scrollToCurrent())
                .observe($('moves'));
    }

    // The game shown (the view's copy of the server's state) and its GID:
    // the view's, read when used.
    get g() { return this.view.g; }
    get gid() { return this.view.gid; }

    // Moves the view to ply `to` (null: live), or by `to` when `relative`.
    browse(to, relative) {
        const g = this.g;
        if (!g)
            return;
        const cur = g.viewPly === null ? g.ply : g.viewPly;
        let next = relative ? cur + to : to;
        if (next === null || next >= g.ply)
            next = null;
        else
            next = Math.max(0, next);
        if (next === g.viewPly)
            return;
        g.viewPly = next;
        this.view.render();
    }

    // Arrows, Home and End browse while the game page shows.
    keyDown(e) {
        if (this.view.section.hidden || !this.g || e.altKey || e.ctrlKey ||
            e.metaKey)
            return;
        const t = e.target;
        if (t && (t.closest('input, textarea, select, dialog, .board')))
            return;
        const keys = { ArrowLeft: [-1, true], ArrowRight: [1, true],
                       Home: [0, false], End: [null, false] };
        const k = keys[e.key];
        if (!k)
            return;
        e.preventDefault();
        this.browse(k[0], k[1]);
    }

    // Shows the moves of the game, the one on the board marked.
    render() {
        const g = this.g;
        const list = $('moves');
        const key = `${this.gid}:${g.ply}:${g.viewPly}:${g.san.length}:${
            g.status === 'ended' ? g.result : ''}`;
        if (list.dataset.key === key)
            return;
        list.dataset.key = key;
        const fen = g.initialFen.split(/\s+/);
        const blackFirst = fen[1] === 'b';
        const startNo = Number(fen[5]) || 1;
        const current = g.viewPly === null ? g.ply : g.viewPly;
        const frag = document.createDocumentFragment();
        let row = null;
        g.san.forEach((san, i) => {
            const h = i + (blackFirst ? 1 : 0);
            const white = h % 2 === 0;
            if (white || !row) {
                row = document.createElement('div');
                row.className = 'move-row';
                row.setAttribute('role', 'listitem');
                const no = document.createElement('span');
                no.className = 'move-no';
                no.textContent = `${startNo + Math.floor(h / 2)}.`;
                row.append(no);
                if (!white) {
                    const dots = document.createElement('span');
                    dots.className = 'move dots';
                    dots.textContent = '…';
                    row.append(dots);
                }
                frag.append(row);
            }
            const b = document.createElement('button');
            b.type = 'button';
            b.className = 'move';
            b.dataset.ply = String(i + 1);
            b.textContent = san;
            // The lag credit the server gave the move, when seen in a
            // `moved` (the state of a game lists none).
            const lag = g.lags[i + 1];
            const lagged = typeof lag === 'number' && lag > 0;
            b.setAttribute('aria-label', `${startNo + Math.floor(h / 2)}${
                white ? '.' : '…'} ${san}${lagged ? `, ${W.lagText(lag)}`
                : ''}`);
            if (lagged) {
                b.title = W.lagText(lag);
                b.dataset.lag = String(lag);
            }
            if (i + 1 === current) {
                b.classList.add('current');
                b.setAttribute('aria-current', 'step');
            }
            row.append(b);
        });
        if (!g.san.length) {
            const p = document.createElement('p');
            p.className = 'no-moves';
            p.setAttribute('role', 'listitem'); /* #moves is a list */
            p.textContent = g.status === 'ended' ? 'No moves were played.'
                : 'No moves yet.';
            frag.append(p);
        }
        const score = g.status === 'ended' ? W.scoreText(g.result) : '';
        if (score) {
            const p = document.createElement('p');
            p.className = 'moves-result';
            p.setAttribute('role', 'listitem');
            p.textContent = score;
            p.setAttribute('aria-label', `Result ${score}`);
            frag.append(p);
        }
        list.replaceChildren(frag);
        this.scrollToCurrent();
        const live = g.viewPly === null;
        $('nav-first').disabled = current === 0;
        $('nav-prev').disabled = current === 0;
        $('nav-next').disabled = live;
        $('nav-last').disabled = live;
    }

    // Scrolls the list (only the list, never the page) so that the move
    // shown is in view, with the score after it when the game is over
    // and the last move is shown.
    scrollToCurrent() {
        const list = $('moves');
        const cur = list.querySelector('.current');
        if (!cur || !list.clientHeight)
            return;
        const end = this.g && this.g.viewPly === null &&
            list.querySelector('.moves-result');
        const box = list.getBoundingClientRect();
        const r = cur.getBoundingClientRect();
        const last = end ? end.getBoundingClientRect() : r;
        if (r.top < box.top)
            list.scrollTop += r.top - box.top;
        else if (last.bottom > box.bottom)
            list.scrollTop += Math.min(last.bottom - box.bottom,
                                       r.top - box.top);
        if (r.left < box.left)
            list.scrollLeft += r.left - box.left;
        else if (last.right > box.right)
            list.scrollLeft += Math.min(last.right - box.right,
                                        r.left - box.left);
    }

    // No game to show yet: no moves, nothing to browse.
    clear() {
        $('moves').replaceChildren();
        $('moves').dataset.key = '';
        for (const id of ['nav-first', 'nav-prev', 'nav-next', 'nav-last'])
            $(id).disabled = true;
    }
}

// board.js - the chessboard widget: draws a position, highlights the last
// move, check, the selected piece and its destinations, and turns drags,
// clicks, taps and keys into UCI moves.
//
// It knows no rules: the only moves it offers are the ones in the list the
// server sent (`legal`), and a promotion picker offers exactly the pieces
// that list names. In premove mode (the opponent's turn) `legal` is the
// caller's list of candidate premoves, a promotion is taken as given (no
// picker), queued premoves are highlighted, and a click that starts no
// move, a right-click or Escape calls `onCancelPremove()`. The widget owns
// its DOM under `root`; the caller owns the position and gets moves
// through `onMove(uci)`.

import { FILES, squareName } from './position.js';
import { animationMs, autoQueen } from './settings.js';
import { pieceName, promotionName } from './words.js';

const DRAG_THRESHOLD_PX = 4;
const SVG_NS = 'http://www.w3.org/2000/svg';
const PROMO_ORDER = ['q', 'n', 'r', 'b'];

// An <svg> that shows piece `code` ('wK', 'bP', ...) from the page's
// sprite (index.html's <symbol id="piece-wK"> and so on: no request of its
// own), with class `className`. Decorative (aria-hidden): the caller says
// what it is. The caller owns the element.
export function pieceIcon(code, className) {
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('class', className);
    svg.setAttribute('viewBox', '0 0 45 45');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    const use = document.createElementNS(SVG_NS, 'use');
    use.setAttribute('href', `#piece-${code}`);
    svg.append(use);
    svg.dataset.code = code;
    return svg;
}

// Shows piece `code` in an element made by pieceIcon.
function setIcon(svg, code) {
    svg.dataset.code = code;
    svg.firstChild.setAttribute('href', `#piece-${code}`);
}

export class Board {
    constructor(root, onMove) {
        this.root = root;
        this.onMove = onMove;
        this.orientation = 'white';
        this.pieces = new Array(64).fill(null);
        this.moves = new Map();
        this.interactive = false;
        this.selected = -1;
        this.lastMove = null;
        this.checkSq = -1;
        this.premove = false;
        this.premoveSqs = new Set();
        this.onCancelPremove = null;
        this.focusSq = 12;            /* e2: the roving tab stop */
        this.drag = null;
        this.promo = null;
        this.cells = [];
        this.icons = new Array(64).fill(null);
        this.build();
    }

    build() {
        this.root.classList.add('board');
        this.root.setAttribute('role', 'grid');
        this.root.setAttribute('aria-label', 'Chessboard');
        this.rows = [];
        for (let r = 0; r < 8; r++) {
            const row = document.createElement('div');
            row.className = 'row';
            row.setAttribute('role', 'row');
            this.rows.push(row);
            this.root.append(row);
        }
        for (let sq = 0; sq < 64; sq++) {
            const cell = document.createElement('div');
            const dark = (Math.floor(sq / 8) + (sq % 8)) % 2 === 0;
            cell.dataset.sq = String(sq);
            cell.setAttribute('role', 'gridcell');
            cell.tabIndex = -1;
            cell.dataset.base = dark ? 'sq dark' : 'sq light';
            cell.className = cell.dataset.base;
            this.cells.push(cell);
        }
        this.promoEl = document.createElement('div');
        this.promoEl.className = 'promo';
        this.promoEl.setAttribute('role', 'dialog');
        this.promoEl.setAttribute('aria-label', 'Promote the pawn to');
        this.promoEl.hidden = true;
        this.root.append(this.promoEl);
        this.layout();

        this.root.addEventListener('pointerdown', (e) => this.pointerDown(e));
        this.root.addEventListener('pointermove', (e) => this.pointerMove(e));
        this.root.addEventListener('pointerup', (e) => this.pointerUp(e));
        this.root.addEventListener('pointercancel', () => this.endDrag());
        this.root.addEventListener('lostpointercapture', () => this.endDrag());
        this.root.addEventListener('keydown', (e) => this.keyDown(e));
        this.root.addEventListener('contextmenu', (e) => {
            e.preventDefault();
            this.cancelPremove();
        });
        this.root.addEventListener('focusin', (e) => {
            const cell = e.target.closest && e.target.closest('.sq');
            if (cell)
                this.focusSq = Number(cell.dataset.sq);
        });
    }

    // Places the cells in visual order for the orientation, with the
    // coordinate labels on the bottom rank and the left file.
    layout() {
        const white = this.orientation === 'white';
        for (let vr = 0; vr < 8; vr++) {
            const row = this.rows[vr];
            row.replaceChildren();
            for (let vc = 0; vc < 8; vc++) {
                const sq = this.squareAtVisual(vr, vc);
                const cell = this.cells[sq];
                cell.querySelectorAll('.coord').forEach((c) => c.remove());
                if (vc === 0) {
                    const rank = document.createElement('span');
                    rank.className = 'coord rank';
                    rank.setAttribute('aria-hidden', 'true');
                    rank.dataset.label = String(Math.floor(sq / 8) + 1);
                    cell.append(rank);
                }
                if (vr === 7) {
                    const file = document.createElement('span');
                    file.className = 'coord file';
                    file.setAttribute('aria-hidden', 'true');
                    file.dataset.label = FILES[sq % 8];
                    cell.append(file);
                }
                row.append(cell);
            }
        }
        this.root.classList.toggle('flipped', !white);
    }

    squareAtVisual(vr, vc) {
        return this.orientation === 'white' ? (7 - vr) * 8 + vc
            : vr * 8 + (7 - vc);
    }

    visualOf(sq) {
        const r = Math.floor(sq / 8), f = sq % 8;
        return this.orientation === 'white' ? [7 - r, f] : [r, 7 - f];
    }

    // Shows a position. opts: board (64 codes or null), orientation,
    // lastMove ([from, to] or null), check (square or -1), legal (UCI list,
    // used only when interactive), interactive, animate ([from, to] to
    // slide, or null), premove (premove mode), premoves (queued UCIs).
    set(opts) {
        if (opts.orientation && opts.orientation !== this.orientation) {
            this.orientation = opts.orientation;
            this.layout();
        }
        const old = this.pieces;
        this.pieces = opts.board.slice();
        this.lastMove = opts.lastMove || null;
        this.checkSq = opts.check === undefined ? -1 : opts.check;
        this.interactive = !!opts.interactive;
        this.premove = !!opts.premove;
        this.premoveSqs = new Set();
        for (const uci of opts.premoves || []) {
            this.premoveSqs.add(sqOf(uci, 0));
            this.premoveSqs.add(sqOf(uci, 2));
        }
        this.moves = new Map();
        if (this.interactive) {
            for (const uci of opts.legal || []) {
                const from = sqOf(uci, 0), to = sqOf(uci, 2);
                if (!this.moves.has(from))
                    this.moves.set(from, new Map());
                const dests = this.moves.get(from);
                if (!dests.has(to))
                    dests.set(to, []);
                dests.get(to).push(uci);
            }
        }
        if (!this.moves.has(this.selected))
            this.selected = -1;
        if (!this.interactive)
            this.closePromotion();
        this.render();
        if (opts.animate && !this.justDropped)
            this.slide(opts.animate[0], opts.animate[1], old);
        this.justDropped = false;
    }

    render() {
        const dests = this.selected >= 0 ? this.moves.get(this.selected)
            : null;
        for (let sq = 0; sq < 64; sq++) {
            const cell = this.cells[sq];
            const code = this.pieces[sq];
            let cls = cell.dataset.base;
            if (this.lastMove && (sq === this.lastMove[0] ||
                                  sq === this.lastMove[1]))
                cls += ' last';
            if (sq === this.checkSq)
                cls += ' check';
            if (this.premoveSqs.has(sq))
                cls += ' premove';
            if (sq === this.selected)
                cls += ' selected';
            if (dests && dests.has(sq))
                cls += code ? ' dest capture' : ' dest';
            if (this.interactive && this.moves.has(sq))
                cls += ' movable';
            if (this.drag && this.drag.active && sq === this.drag.over)
                cls += ' hover';
            cell.className = cls;
            this.setPiece(sq, code);
            let label = `${squareName(sq)}, ${
                code ? pieceName(code) : 'empty'}`;
            if (sq === this.selected)
                label += ', selected';
            else if (dests && dests.has(sq))
                label += ', move here';
            if (sq === this.checkSq)
                label += ', in check';
            if (this.premoveSqs.has(sq))
                label += ', premove';
            cell.setAttribute('aria-label', label);
            cell.setAttribute('aria-selected', String(sq === this.selected));
            cell.tabIndex = sq === this.focusSq ? 0 : -1;
        }
    }

    setPiece(sq, code) {
        let img = this.icons[sq];
        if (!code) {
            if (img) {
                img.remove();
                this.icons[sq] = null;
            }
            return;
        }
        if (!img) {
            img = pieceIcon(code, 'piece');
            this.icons[sq] = img;
            this.cells[sq].prepend(img);
        }
        if (img.dataset.code !== code)
            setIcon(img, code);
        img.classList.toggle('ghost', !!(this.drag && this.drag.active &&
                                         this.drag.from === sq));
    }

    // Slides the piece now on `to` from `from` (Web Animations API: no
    // inline style, so the page stays within a strict CSP).
    slide(from, to) {
        const img = this.icons[to];
        const ms = animationMs();
        if (!img || !ms || typeof img.animate !== 'function' ||
            window.matchMedia('(prefers-reduced-motion: reduce)').matches)
            return;
        const [fr, fc] = this.visualOf(from);
        const [tr, tc] = this.visualOf(to);
        const dx = (fc - tc) * 100, dy = (fr - tr) * 100;
        img.animate([{ transform: `translate(${dx}%, ${dy}%)` },
                     { transform: 'translate(0, 0)' }],
                    { duration: ms, easing: 'ease-out' });
    }

    cellAt(x, y) {
        const rect = this.root.getBoundingClientRect();
        const vc = Math.floor(((x - rect.left) / rect.width) * 8);
        const vr = Math.floor(((y - rect.top) / rect.height) * 8);
        if (vc < 0 || vc > 7 || vr < 0 || vr > 7)
            return -1;
        return this.squareAtVisual(vr, vc);
    }

    select(sq) {
        this.selected = sq;
        this.render();
    }

    // A click, a tap or Enter on a square.
    tap(sq, wasSelected) {
        if (!this.interactive)
            return;
        if (this.selected >= 0 && this.selected !== sq) {
            const dests = this.moves.get(this.selected);
            if (dests && dests.has(sq)) {
                this.play(this.selected, sq);
                return;
            }
        }
        if (this.moves.has(sq))
            this.select(wasSelected ? -1 : sq);
        else
            this.select(-1);
    }

    // Drops the queued premoves (through the caller) when there are any.
    // Returns whether it did.
    cancelPremove() {
        if (!this.premoveSqs.size || !this.onCancelPremove)
            return false;
        this.selected = -1;
        this.onCancelPremove();
        return true;
    }

    pointerDown(e) {
        if (e.button !== 0 || this.promo)
            return;
        const cell = e.target.closest('.sq');
        if (!cell)
            return;
        const sq = Number(cell.dataset.sq);
        // A click that starts no new premove cancels the queued ones.
        const dests = this.selected >= 0 ? this.moves.get(this.selected)
            : null;
        if (this.premoveSqs.size && !(this.interactive &&
            (this.moves.has(sq) || dests && dests.has(sq)))) {
            this.cancelPremove();
            return;
        }
        if (!this.interactive)
            return;
        const wasSelected = sq === this.selected;
        if (this.selected >= 0 && !wasSelected) {
            const dests = this.moves.get(this.selected);
            if (dests && dests.has(sq)) {
                e.preventDefault();
                this.play(this.selected, sq);
                return;
            }
        }
        if (!this.moves.has(sq)) {
            this.select(-1);
            return;
        }
        e.preventDefault();
        this.focusSq = sq;
        this.select(sq);
        this.drag = { from: sq, x: e.clientX, y: e.clientY, active: false,
                      over: sq, wasSelected, pointerId: e.pointerId };
        try {
            this.root.setPointerCapture(e.pointerId);
        } catch {
            /* synthetic events have no capture */
        }
    }

    pointerMove(e) {
        const d = this.drag;
        if (!d || e.pointerId !== d.pointerId)
            return;
        if (!d.active) {
            if (Math.hypot(e.clientX - d.x, e.clientY - d.y) <
                DRAG_THRESHOLD_PX)
                return;
            d.active = true;
            const size = this.root.getBoundingClientRect().width / 8;
            const img = pieceIcon(this.pieces[d.from], 'drag-piece');
            img.style.width = `${size}px`;
            img.style.height = `${size}px`;
            d.size = size;
            d.img = img;
            document.body.append(img);
            this.root.classList.add('dragging');
            this.render();
        }
        d.img.style.transform = `translate(${e.clientX - d.size / 2}px, ${
            e.clientY - d.size / 2}px)`;
        const over = this.cellAt(e.clientX, e.clientY);
        if (over !== d.over) {
            d.over = over;
            this.render();
        }
    }

    pointerUp(e) {
        const d = this.drag;
        if (!d || e.pointerId !== d.pointerId)
            return;
        if (!d.active) {
            this.endDrag();
            if (d.wasSelected)
                this.select(-1);
            return;
        }
        const to = this.cellAt(e.clientX, e.clientY);
        this.endDrag();
        const dests = this.moves.get(d.from);
        if (to !== d.from && dests && dests.has(to)) {
            this.justDropped = true;
            this.play(d.from, to);
        } else if (to !== d.from) {
            this.select(-1);
        }
    }

    endDrag() {
        const d = this.drag;
        if (!d)
            return;
        this.drag = null;
        if (d.img)
            d.img.remove();
        this.root.classList.remove('dragging');
        this.render();
    }

    keyDown(e) {
        if (this.promo) {
            if (e.key === 'Escape') {
                this.closePromotion();
                this.cells[this.focusSq].focus();
            }
            return;
        }
        const cell = e.target.closest('.sq');
        if (!cell)
            return;
        const sq = Number(cell.dataset.sq);
        let [vr, vc] = this.visualOf(sq);
        switch (e.key) {
        case 'ArrowUp': vr = Math.max(0, vr - 1); break;
        case 'ArrowDown': vr = Math.min(7, vr + 1); break;
        case 'ArrowLeft': vc = Math.max(0, vc - 1); break;
        case 'ArrowRight': vc = Math.min(7, vc + 1); break;
        case 'Home': vc = 0; break;
        case 'End': vc = 7; break;
        case 'Enter':
        case ' ':
            e.preventDefault();
            this.tap(sq, sq === this.selected);
            return;
        case 'Escape':
            if (!this.cancelPremove())
                this.select(-1);
            return;
        default:
            return;
        }
        e.preventDefault();
        e.stopPropagation();
        this.focusSq = this.squareAtVisual(vr, vc);
        this.render();
        this.cells[this.focusSq].focus();
    }

    // Sends a move, or first asks which piece a pawn becomes.
    play(from, to) {
        const ucis = this.moves.get(from).get(to);
        this.selected = -1;
        if (ucis.length === 1 && (ucis[0].length === 4 || this.premove)) {
            this.render();
            this.onMove(ucis[0]);
            return;
        }
        this.render();
        const queen = autoQueen() && ucis.find((u) => u[4] === 'q');
        if (queen) {
            this.onMove(queen);
            return;
        }
        this.openPromotion(from, to, ucis);
    }

    openPromotion(from, to, ucis) {
        const letters = PROMO_ORDER.filter((l) =>
            ucis.some((u) => u[4] === l));
        const color = this.pieces[from] ? this.pieces[from][0] : 'w';
        const [vr, vc] = this.visualOf(to);
        const top = vr < 4;
        this.promo = { from, to };
        this.promoEl.replaceChildren();
        this.promoEl.className = `promo ${top ? 'from-top' : 'from-bottom'}`;
        this.promoEl.style.left = `${vc * 12.5}%`;
        for (const l of letters) {
            const b = document.createElement('button');
            b.type = 'button';
            b.className = 'promo-choice';
            b.dataset.uci = ucis.find((u) => u[4] === l);
            b.setAttribute('aria-label', `Promote to ${promotionName(l)}`);
            b.title = promotionName(l);
            b.append(pieceIcon(`${color}${l.toUpperCase()}`, 'promo-piece'));
            b.addEventListener('click', (ev) => {
                ev.stopPropagation();
                const uci = b.dataset.uci;
                this.closePromotion();
                this.onMove(uci);
            });
            b.addEventListener('pointerdown', (ev) => ev.stopPropagation());
            this.promoEl.append(b);
        }
        const cancel = document.createElement('button');
        cancel.type = 'button';
        cancel.className = 'promo-cancel';
        cancel.setAttribute('aria-label', 'Cancel promotion');
        cancel.textContent = '×';
        cancel.addEventListener('pointerdown', (ev) => ev.stopPropagation());
        cancel.addEventListener('click', (ev) => {
            ev.stopPropagation();
            this.closePromotion();
        });
        this.promoEl.append(cancel);
        this.promoEl.hidden = false;
        this.root.classList.add('promoting');
        this.promoEl.querySelector('button').focus();
    }

    closePromotion() {
        if (!this.promo)
            return;
        this.promo = null;
        this.promoEl.hidden = true;
        this.promoEl.replaceChildren();
        this.root.classList.remove('promoting');
    }
}

function sqOf(uci, at) {
    return (uci.charCodeAt(at + 1) - 49) * 8 + (uci.charCodeAt(at) - 97);
}

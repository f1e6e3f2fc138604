// arrows.js - arrows and circles over a board (board.js's Board): the
// shapes a player draws with the right mouse button on the analysis board
// (as lichess: a right-drag draws an arrow, a right-click a circle, the
// same shape again removes it, a left click clears them all), and the
// engine's best move the game page's analysis shows (analysis.js). Loaded
// only with those modules. The layer is an <svg> over the board in its
// own coordinates (one unit a square), decorative: the caller says in
// words what it shows.

const SVG = 'http://www.w3.org/2000/svg';

export class Shapes {
    // board: the Board under the layer (its root's parent is positioned).
    constructor(board, cls) {
        this.board = board;
        this.svg = document.createElementNS(SVG, 'svg');
        this.svg.setAttribute('class', `shapes ${cls || ''}`.trim());
        this.svg.setAttribute('viewBox', '0 0 8 8');
        this.svg.setAttribute('aria-hidden', 'true');
        const defs = document.createElementNS(SVG, 'defs');
        const marker = document.createElementNS(SVG, 'marker');
        this.markerId = `arrowhead-${cls || 'user'}`;
        marker.setAttribute('id', this.markerId);
        marker.setAttribute('orient', 'auto');
        marker.setAttribute('markerWidth', '4');
        marker.setAttribute('markerHeight', '8');
        marker.setAttribute('refX', '2.05');
        marker.setAttribute('refY', '2.01');
        const head = document.createElementNS(SVG, 'path');
        head.setAttribute('d', 'M0,0 V4 L3,2 Z');
        marker.append(head);
        defs.append(marker);
        this.svg.append(defs);
        board.root.parentElement.append(this.svg);
        this.shapes = [];  /* {from, to}: an arrow, or from === to: circle */
        this.onChange = null;  /* (shapes): the player drew or cleared */
    }

    // Sets the shapes (squares 0..63) and draws them.
    set(shapes) {
        this.shapes = shapes.slice();
        this.draw();
    }

    // Adds the shape, or removes it when drawn already.
    toggle(from, to) {
        const i = this.shapes.findIndex((s) => s.from === from &&
                                        s.to === to);
        if (i >= 0)
            this.shapes.splice(i, 1);
        else
            this.shapes.push({ from, to });
        this.draw();
    }

    center(sq) {
        const [vr, vc] = this.board.visualOf(sq);
        return [vc + 0.5, vr + 0.5];
    }

    draw() {
        for (const n of [...this.svg.children])
            if (n.tagName !== 'defs')
                n.remove();
        for (const s of this.shapes) {
            const [x1, y1] = this.center(s.from);
            if (s.from === s.to) {
                const c = document.createElementNS(SVG, 'circle');
                c.setAttribute('cx', String(x1));
                c.setAttribute('cy', String(y1));
                c.setAttribute('r', '0.45');
                c.setAttribute('class', 'circle');
                this.svg.append(c);
                continue;
            }
            const [x2, y2] = this.center(s.to);
            // stop short of the centre: the head ends there
            const len = Math.hypot(x2 - x1, y2 - y1);
            const k = (len - 0.3) / len;
            const line = document.createElementNS(SVG, 'line');
            line.setAttribute('x1', String(x1));
            line.setAttribute('y1', String(y1));
            line.setAttribute('x2', String(x1 + (x2 - x1) * k));
            line.setAttribute('y2', String(y1 + (y2 - y1) * k));
            line.setAttribute('class', 'arrow');
            line.setAttribute('marker-end', `url(#${this.markerId})`);
            line.dataset.from = String(s.from);
            line.dataset.to = String(s.to);
            this.svg.append(line);
        }
    }

    // Draws on a right-button drag or click over the board; a left
    // click clears.
    listen() {
        const root = this.board.root;
        let start = -1;
        root.addEventListener('pointerdown', (e) => {
            if (e.button === 2) {
                start = this.board.cellAt(e.clientX, e.clientY);
            } else if (e.button === 0 && this.shapes.length) {
                this.set([]);
                this.changed();
            }
        });
        root.addEventListener('pointerup', (e) => {
            if (e.button !== 2 || start < 0)
                return;
            const end = this.board.cellAt(e.clientX, e.clientY);
            if (end >= 0) {
                this.toggle(start, end);
                this.changed();
            }
            start = -1;
        });
    }

    changed() {
        if (this.onChange)
            this.onChange(this.shapes.slice());
    }
}

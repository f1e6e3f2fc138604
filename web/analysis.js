// analysis.js - the computer analysis of a finished game on the game page
// (PROTOCOL.md section 7, "Computer analysis"): the "Request computer
// analysis" button, the progress while the server analyses, the
// evaluation graph, each side's accuracy and counts of inaccuracies,
// mistakes and blunders, the engine line, and in the move list each
// move's mark (?!, ?, ??) and evaluation; the move shown, when marked,
// says the engine's best move instead, in words and as an arrow on the
// board (arrows.js).

import { Shapes } from './arrows.js';
import { squareIndex } from './position.js';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const NAME = { inaccuracy: 'Inaccuracy', mistake: 'Mistake',
               blunder: 'Blunder' };

// A position's score as lichess writes it: "+0.17", "#3", "#-3".
export function evalText(p) {
    if (!p || p.failed)
        return '';
    if (p.checkmate)
        return '#';
    if (typeof p.mate === 'number')
        return `#${p.mate}`;
    const v = p.cp / 100;
    return `${v > 0 ? '+' : ''}${v.toFixed(2)}`;
}

// White's win percentage of a position (lichess's formula: the graph's
// height), 50 when unknown.
export function winPercent(p) {
    if (!p || p.failed)
        return 50;
    let cp;
    if (p.checkmate || typeof p.mate === 'number')
        cp = (p.mate || 0) > 0 || (p.checkmate && p.white) ? 1000 : -1000;
    else
        cp = Math.max(-1000, Math.min(1000, p.cp));
    return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}

export class AnalysisPanel {
    // view: the GameView whose finished game the panel analyses.
    constructor(view) {
        this.view = view;
        this.gid = null;
        this.a = null;      // the last `analysis` of this.gid, kept current
        this.asked = false; // `analysis` sent for this.gid
        $('analysis-btn').addEventListener('click', () => this.request());
    }

    request() {
        const id = this.view.ctx.send({ t: 'analyse', game: this.gid },
                                      { t: 'analyse', game: this.gid });
        if (id)
            $('analysis-btn').disabled = true;
    }

    onMessage(msg) {
        if (msg.game !== this.gid)
            return;
        if (msg.t === 'analysis') {
            this.a = msg;
        } else if (this.a) {
            // (a job on another node of a cluster is answered without
            // its positions: they come one by one)
            if (!this.a.positions)
                this.a.positions = new Array(msg.total).fill(null);
            this.a.total = msg.total;
            this.a.positions[msg.position] = msg.score;
            this.a.done = msg.done;
            this.a.status = 'running';
        }
        this.view.render();
    }

    // An analyse refused: the button may be pressed again.
    onError() {
        $('analysis-btn').disabled = false;
    }

    // Shows the panel of the game shown when it is over.
    render(g, online) {
        const panel = $('analysis-panel');
        if (!g || g.status !== 'ended') {
            panel.hidden = true;
            if (this.arrow)
                this.arrow.set([]);
            return;
        }
        if (this.gid !== this.view.gid) {
            this.gid = this.view.gid;
            this.a = null;
            this.asked = false;
            $('analysis-btn').disabled = false;
        }
        if (!this.asked && online) {
            this.asked = !!this.view.ctx.send(
                { t: 'analysis', game: this.gid },
                { t: 'analysis', game: this.gid, quiet: true });
        }
        const a = this.a;
        const status = a ? a.status : 'none';
        panel.hidden = false;
        $('analysis-btn').hidden = status !== 'none';
        const busy = status === 'queued' || status === 'running';
        $('analysis-progress').hidden = !busy;
        if (busy) {
            $('analysis-progress').max = a.total || 1;
            $('analysis-progress').value = a.done || 0;
            $('analysis-progress').textContent =
                `${a.done || 0} of ${a.total} positions`;
        }
        const positions = a && a.positions ? a.positions : null;
        $('analysis-graph').toggleAttribute('hidden', !positions); // (SVG)
        if (positions)
            this.graph(positions, g);
        this.summary(a, status === 'done');
        this.best(g, positions);
        this.marks(positions);
    }

    // The evaluation graph: White's win percentage at each position.
    graph(positions, g) {
        const svg = $('analysis-graph');
        const w = 300, h = 60, n = Math.max(positions.length - 1, 1);
        const pts = positions.map((p, i) => {
            const x = (i / n) * w;
            const y = h - (winPercent(p && p.checkmate
                ? { checkmate: true, white: g.result === '1-0' } : p) / 100) * h;
            return `${x.toFixed(1)},${y.toFixed(1)}`;
        });
        svg.replaceChildren();
        const mid = document.createElementNS(SVG, 'line');
        mid.setAttribute('x1', '0');
        mid.setAttribute('x2', String(w));
        mid.setAttribute('y1', String(h / 2));
        mid.setAttribute('y2', String(h / 2));
        mid.setAttribute('class', 'mid');
        const line = document.createElementNS(SVG, 'polyline');
        line.setAttribute('points', pts.join(' '));
        svg.append(mid, line);
        const cur = g.viewPly === null ? g.ply : g.viewPly;
        if (cur < positions.length) {
            const dot = document.createElementNS(SVG, 'circle');
            const [x, y] = pts[cur].split(',');
            dot.setAttribute('cx', x);
            dot.setAttribute('cy', y);
            dot.setAttribute('r', '3');
            svg.append(dot);
        }
    }

    // Each side's accuracy and counts, and the engine line.
    summary(a, done) {
        $('analysis-summary').hidden = !done;
        $('analysis-engine').hidden = !done;
        if (!done)
            return;
        for (const side of ['white', 'black']) {
            const acc = a.accuracy[side];
            const c = a.counts[side];
            $(`analysis-${side}`).textContent =
                `${side === 'white' ? 'White' : 'Black'}: ${
                    acc === null ? '–' : `${Math.round(acc)}% accuracy`}, ${
                    c.inaccuracy} inaccuracies, ${c.mistake} mistakes, ${
                    c.blunder} blunders`;
        }
        $('analysis-engine').textContent =
            `${a.engine || 'Engine'}, ${a.nodes} nodes per position`;
    }

    // The move shown, when marked: its judgement and the best move.
    best(g, positions) {
        const el = $('analysis-best');
        const cur = g.viewPly === null ? g.ply : g.viewPly;
        const p = positions && positions[cur];
        const before = positions && cur > 0 && positions[cur - 1];
        if (!this.arrow)
            this.arrow = new Shapes(this.view.play.board, 'best');
        if (!p || !p.judgement || !before || !before.best_san) {
            el.hidden = true;
            this.arrow.set([]);
            return;
        }
        // the arrow of the best move, on the position before the move
        // marked: drawn over the board showing the move played
        if (before.best)
            this.arrow.set([{ from: squareIndex(before.best.slice(0, 2)),
                              to: squareIndex(before.best.slice(2, 4)) }]);
        el.hidden = false;
        el.textContent = `${NAME[p.judgement]}: ${g.san[cur - 1]}. ` +
            `Best was ${before.best_san}.`;
    }

    // Each move of the list gets its mark and evaluation.
    marks(positions) {
        for (const b of document.querySelectorAll('#moves button[data-ply]')) {
            const i = Number(b.dataset.ply);
            const p = positions && positions[i];
            let span = b.querySelector('.eval');
            if (!p) {
                if (span)
                    span.remove();
                if (b.dataset.label !== undefined)
                    b.setAttribute('aria-label', b.dataset.label);
                continue;
            }
            if (!span) {
                span = document.createElement('span');
                span.className = 'eval';
                b.append(span);
            }
            const glyph = p.judgement ? GLYPH[p.judgement] : '';
            span.textContent = `${glyph} ${evalText(p)}`.trim();
            span.dataset.judgement = p.judgement || '';
            // the name holds the text shown ("Nf6?? #1"), and the
            // judgement in words (the list's label was "3… Nf6")
            if (b.dataset.label === undefined)
                b.dataset.label = b.getAttribute('aria-label') || '';
            const san = b.firstChild ? b.firstChild.textContent : '';
            const name = b.dataset.label.replace(san, b.textContent);
            b.setAttribute('aria-label',
                           p.judgement ? `${name}, ${p.judgement}` : name);
        }
    }
}

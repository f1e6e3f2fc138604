// ratings.js - a player's ratings: the category of a clock, and
// renderRatings(), which fills a container with the player's rating, RD,
// games and wins/draws/losses per category, each with a graph of its
// history drawn as inline SVG (from the HTTP API, PROTOCOL.md section 10).
//
// The DOM-free parts (categoryOf, graphModel) run in node as well.

import * as W from './words.js';

const SVG = 'http://www.w3.org/2000/svg';
const GRAPH = { width: 320, height: 140, left: 44, right: 10, top: 10,
                bottom: 24 };

// The rating category of a clock, as the server computes it.
export function categoryOf(clock) {
    if (!clock)
        return null;
    if (clock.type === 'per_move')
        return 'per_move';
    const est = clock.initial_s + 40 * clock.increment_s;
    return est < 180 ? 'bullet' : est < 480 ? 'blitz'
        : est < 1500 ? 'rapid' : 'classical';
}

// The geometry of a rating graph for `points` ([{ms, rating, rd}...],
// oldest first, at least one): x by game number, y by rating over a range
// padded to multiples of 50. Returns { width, height, xy: [[x, y]...],
// yTicks: [{y, label}], xTicks: [{x, label}], label } where label is the
// text alternative (first, last, lowest and highest rating).
export function graphModel(points, category) {
    const g = GRAPH;
    const ratings = points.map((p) => p.rating);
    const min = Math.min(...ratings);
    const max = Math.max(...ratings);
    // at least 10 points of room above and below, on multiples of 50
    const lo = Math.floor((min - 10) / 50) * 50;
    const hi = Math.max(Math.ceil((max + 10) / 50) * 50, lo + 100);
    const w = g.width - g.left - g.right;
    const h = g.height - g.top - g.bottom;
    const n = points.length;
    const x = (i) => g.left + (n === 1 ? w / 2 : (w * i) / (n - 1));
    const y = (r) => g.top + h - (h * (r - lo)) / (hi - lo);
    const round = (v) => Math.round(v * 10) / 10;
    const xy = points.map((p, i) => [round(x(i)), round(y(p.rating))]);
    const yTicks = [lo, (lo + hi) / 2, hi].map((r) => ({
        y: round(y(r)), label: String(Math.round(r)) }));
    const xTicks = n === 1 ? [{ x: round(x(0)), label: 'game 1' }]
        : [{ x: round(x(0)), label: 'game 1' },
           { x: round(x(n - 1)), label: `game ${n}` }];
    const games = n === 1 ? '1 rated game' : `${n} rated games`;
    const label = `${W.categoryName(category)} rating over ${games}: ` +
        `first ${ratings[0]}, last ${ratings[n - 1]}, lowest ${min}, ` +
        `highest ${max}.`;
    return { width: g.width, height: g.height, xy, yTicks, xTicks, label,
             left: g.left, right: g.width - g.right, top: g.top,
             bottom: g.height - g.bottom };
}

function svg(name, attrs) {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {}))
        el.setAttribute(k, String(v));
    return el;
}

// An <svg> graph of `points` (see graphModel), role="img" with the
// summary as its label.
export function ratingGraph(points, category) {
    const m = graphModel(points, category);
    const root = svg('svg', { class: 'rating-graph', role: 'img',
                              viewBox: `0 0 ${m.width} ${m.height}`,
                              'aria-label': m.label });
    const title = svg('title');
    title.textContent = m.label;
    root.append(title);
    const axes = svg('g', { class: 'axes', 'aria-hidden': 'true' });
    axes.append(svg('line', { x1: m.left, y1: m.top, x2: m.left,
                              y2: m.bottom }));
    axes.append(svg('line', { x1: m.left, y1: m.bottom, x2: m.right,
                              y2: m.bottom }));
    for (const t of m.yTicks) {
        axes.append(svg('line', { class: 'grid', x1: m.left, y1: t.y,
                                  x2: m.right, y2: t.y }));
        const label = svg('text', { x: m.left - 4, y: t.y + 4,
                                    'text-anchor': 'end' });
        label.textContent = t.label;
        axes.append(label);
    }
    for (const t of m.xTicks) {
        const label = svg('text', { x: t.x, y: m.height - 6,
                                    'text-anchor': m.xTicks.length > 1 &&
                                    t === m.xTicks[0] ? 'start'
                                        : m.xTicks.length > 1 ? 'end'
                                            : 'middle' });
        label.textContent = t.label;
        axes.append(label);
    }
    root.append(axes);
    const line = svg('g', { class: 'series', 'aria-hidden': 'true' });
    if (m.xy.length > 1)
        line.append(svg('polyline', { points: m.xy.map((p) => p.join(','))
            .join(' ') }));
    m.xy.forEach(([x, y], i) => {
        const dot = svg('circle', { cx: x, cy: y, r: 3 });
        const tip = svg('title');
        tip.textContent = `${points[i].rating} (RD ${points[i].rd}), ${
            new Date(points[i].ms).toLocaleDateString()}`;
        dot.append(tip);
        line.append(dot);
    });
    root.append(line);
    return root;
}

async function getJson(url) {
    const r = await fetch(url);
    let body = null;
    try {
        body = await r.json();
    } catch {
        /* not JSON: body stays null */
    }
    return { status: r.status, body };
}

// An element `name` of class cls (none: null) with text (none: undefined).
export function el(name, cls, text) {
    const e = document.createElement(name);
    if (cls)
        e.className = cls;
    if (text !== undefined)
        e.textContent = text;
    return e;
}

// Fills `container` with player `pid`'s ratings: per category played
// rated, the rating (with ? while provisional), RD, games, wins/draws/
// losses and a graph of its history. Replaces the container's children;
// resolves once everything is drawn (or an error is shown). Returns the
// player's profile (GET /api/players/PID) or null.
export async function renderRatings(container, pid) {
    container.classList.add('ratings');
    container.setAttribute('aria-busy', 'true');
    container.replaceChildren(el('p', 'ratings-note', 'Loading ratings…'));
    let prof;
    try {
        prof = await getJson(`/api/players/${encodeURIComponent(pid)}`);
    } catch {
        prof = { status: 0 };
    }
    if (prof.status !== 200 || !prof.body) {
        container.replaceChildren(el('p', 'ratings-note', prof.status === 404
            ? 'There is no such player.'
            : 'The ratings could not be loaded. Try again later.'));
        container.removeAttribute('aria-busy');
        return null;
    }
    const p = prof.body;
    const cats = W.CATEGORIES.filter((c) => p.ratings && p.ratings[c]);
    const frag = document.createDocumentFragment();
    if (!cats.length) {
        frag.append(el('p', 'ratings-note', p.account
            ? `${p.name} has not played a rated game yet.`
            : `${p.name} is a guest: guests play casual games only.`));
    }
    const histories = await Promise.all(cats.map((c) => getJson(
        `/api/players/${encodeURIComponent(pid)}/ratings/${c}`)
        .catch(() => ({ status: 0 }))));
    cats.forEach((c, i) => {
        const r = p.ratings[c];
        const box = el('section', 'rating-cat');
        box.dataset.category = c;
        const head = el('h3', null, W.categoryName(c));
        const value = el('span', 'rating-value',
                         W.ratingText(r.rating, r.provisional));
        if (r.provisional)
            value.title = 'Provisional: too few games to be sure yet';
        head.append(' ', value);
        box.append(head);
        const facts = el('dl', 'rating-facts');
        const fact = (k, v) => facts.append(el('dt', null, k),
                                            el('dd', null, String(v)));
        fact('RD', r.rd);
        fact('Games', r.games);
        fact('Won / drawn / lost', `${r.wins} / ${r.draws} / ${r.losses}`);
        box.append(facts);
        const h = histories[i];
        if (h.status === 200 && h.body && h.body.points &&
            h.body.points.length)
            box.append(ratingGraph(h.body.points, c));
        else
            box.append(el('p', 'ratings-note', 'No rating history.'));
        frag.append(box);
    });
    container.replaceChildren(frag);
    container.removeAttribute('aria-busy');
    return p;
}

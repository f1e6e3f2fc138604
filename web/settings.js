// settings.js - the player's settings: what they are (SETTINGS, with their
// defaults and allowed values), kept in this browser's localStorage under
// STORAGE_KEY, applied to the page at once (attributes on <html> that
// style.css reads) and edited in the settings dialog (#settings-dialog).
//
// Settings live in this browser only: the server does not store them with
// an account yet (PROTOCOL.md has no message for them).
//
// The module is DOM-free until init() is called, so node can test
// normalize().

export const STORAGE_KEY = 'chess.settings';

// name -> { def: default, values: allowed values (for choices) }
export const SETTINGS = {
    theme: { def: 'system', values: ['system', 'dark', 'light'] },
    board: { def: 'brown', values: ['brown', 'blue', 'green', 'grey'] },
    sound: { def: true },
    autoQueen: { def: false },
    hints: { def: true },
    coords: { def: true },
    premoves: { def: 1, min: 0, max: 10 },
    confirmMoves: { def: false },
};

// Returns a complete settings object from `raw` (anything, e.g. parsed
// JSON): every known name with a valid value, the default where `raw` has
// none or a wrong one. Unknown names are dropped. The caller owns it.
export function normalize(raw) {
    const src = raw && typeof raw === 'object' ? raw : {};
    const out = {};
    for (const [name, spec] of Object.entries(SETTINGS)) {
        const v = src[name];
        if (spec.values)
            out[name] = spec.values.includes(v) ? v : spec.def;
        else if (typeof spec.def === 'boolean')
            out[name] = typeof v === 'boolean' ? v : spec.def;
        else
            out[name] = Number.isInteger(v) && v >= spec.min && v <= spec.max
                ? v : spec.def;
    }
    return out;
}

let current = normalize(null);
const listeners = [];
let media = null;

function load() {
    try {
        return normalize(JSON.parse(localStorage.getItem(STORAGE_KEY)));
    } catch {
        return normalize(null);
    }
}

function save() {
    try {
        localStorage.setItem(STORAGE_KEY, JSON.stringify(current));
    } catch {
        /* storage full or refused: the settings last for this page */
    }
}

// The value of setting `name`.
export function get(name) {
    return current[name];
}

// Sound on (not muted).
export const soundOn = () => current.sound;
// A pawn reaching the last rank becomes a queen without the picker.
export const autoQueen = () => current.autoQueen;
// How many premoves may be queued (0: none).
export const premoveCount = () => current.premoves;
// Ask before sending a move in a per-move game.
export const confirmMoves = () => current.confirmMoves;

// Sets `name` to `value` (ignored when not allowed), saves, applies it and
// tells the listeners.
export function set(name, value) {
    const next = normalize({ ...current, [name]: value });
    if (next[name] !== value)
        return;
    current = next;
    save();
    apply();
    for (const fn of listeners)
        fn(name, value);
}

// Calls fn(name, value) after every change, also from another tab.
export function onChange(fn) {
    listeners.push(fn);
}

// The theme the page shows: 'light' or 'dark' ('system' follows the
// browser's prefers-color-scheme).
export function resolvedTheme() {
    if (current.theme !== 'system')
        return current.theme;
    return media && media.matches ? 'light' : 'dark';
}

function apply() {
    const root = document.documentElement;
    const theme = resolvedTheme();
    root.dataset.theme = theme;
    root.dataset.board = current.board;
    root.classList.toggle('no-hints', !current.hints);
    root.classList.toggle('no-coords', !current.coords);
    const meta = document.querySelector('meta[name="theme-color"]');
    if (meta)
        meta.content = theme === 'light' ? '#f4f1ec' : '#262421';
    renderForm();
}

// ---- the dialog ---------------------------------------------------------

const $ = (id) => document.getElementById(id);

function renderForm() {
    const form = $('settings-form');
    if (!form)
        return;
    for (const el of form.elements) {
        if (!el.name || !(el.name in SETTINGS))
            continue;
        const v = current[el.name];
        if (el.type === 'radio')
            el.checked = el.value === v;
        else if (el.type === 'checkbox')
            el.checked = v;
        else if (document.activeElement !== el)
            el.value = String(v);
    }
    const quick = $('sound-toggle');
    if (quick) {
        quick.setAttribute('aria-pressed', String(!current.sound));
        quick.textContent = '♪';
        quick.title = current.sound ? 'Sound on: mute' : 'Muted: turn sound on';
    }
}

function bindForm() {
    const dlg = $('settings-dialog');
    const form = $('settings-form');
    const open = $('settings-btn');
    if (!dlg || !form)
        return;
    const changed = (e) => {
        const el = e.target;
        if (!el.name || !(el.name in SETTINGS))
            return;
        if (el.type === 'checkbox')
            set(el.name, el.checked);
        else if (el.type === 'radio')
            set(el.name, el.value);
        else if (el.value !== '')
            set(el.name, Number(el.value));
    };
    form.addEventListener('change', changed);
    form.addEventListener('submit', (e) => {
        e.preventDefault();
        dlg.close();
    });
    if (open) {
        open.addEventListener('click', () => {
            renderForm();
            dlg.showModal();
            form.querySelector('input').focus();
        });
        dlg.addEventListener('close', () => open.focus());
    }
    const quick = $('sound-toggle');
    if (quick)
        quick.addEventListener('click', () => set('sound', !current.sound));
}

// Loads the saved settings, applies them and binds the dialog. Call once.
export function init() {
    current = load();
    if (window.matchMedia) {
        media = window.matchMedia('(prefers-color-scheme: light)');
        media.addEventListener('change', () => apply());
    }
    // Another tab changed them.
    window.addEventListener('storage', (e) => {
        if (e.key !== STORAGE_KEY)
            return;
        current = load();
        apply();
        for (const fn of listeners)
            fn(null, null);
    });
    bindForm();
    apply();
}

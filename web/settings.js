// settings.js - the player's settings: what they are (SETTINGS, with their
// defaults and allowed values), kept in this browser's localStorage under
// STORAGE_KEY, applied to the page at once (attributes on <html> that
// style.css reads) and edited in the settings dialog (#settings-dialog).
//
// An account's settings are stored with it too (PROTOCOL.md section 4,
// "Settings"): once logged in, the server's object wins over this
// browser's (welcome), a change made here is sent to the server (one
// `settings` message SAVE_DELAY_MS after the last change, at most one per
// SAVE_EVERY_MS: the server meters saves), and a change another device or
// tab of the account saved arrives as `settings_changed`. A guest's
// settings stay in this browser only. localStorage always holds what the
// page shows, so a reload shows it before the server answers.
//
// The module is DOM-free until init() is called, so node can test
// normalize().

export const STORAGE_KEY = 'chess.settings';
export const SAVE_DELAY_MS = 800;
export const SAVE_EVERY_MS = 3000;  /* the server refills a save per 3 s */
const RETRY_MS = 5000;

// name -> { def: default, values: allowed values (for choices) }
export const SETTINGS = {
    theme: { def: 'system', values: ['system', 'dark', 'light'] },
    board: { def: 'brown', values: ['brown', 'blue', 'green', 'grey',
                                    'purple', 'olive', 'marble'] },
    sound: { def: true },
    volume: { def: 70, min: 0, max: 100 },
    autoQueen: { def: false },
    hints: { def: true },
    coords: { def: true },
    premoves: { def: 1, min: 0, max: 10 },
    confirmMoves: { def: false },
    boardSize: { def: 100, min: 60, max: 100, step: 5 },
    animation: { def: 'normal', values: ['none', 'fast', 'normal', 'slow'] },
    zen: { def: false },
    // takebacks with the opponent's approval, as lichess's preference;
    // the server reads it from an account's settings (PROTOCOL.md,
    // Takebacks and time given)
    takeback: { def: 'casual', values: ['never', 'casual', 'always'] },
    // the games' chat rooms; "off": no line seen or sent (the server
    // reads it from an account's settings: PROTOCOL.md, Chat)
    chat: { def: 'on', values: ['on', 'off'] },
};

// How long a piece slides for each `animation` value (ms).
export const ANIMATION_MS = { none: 0, fast: 100, normal: 160, slow: 300 };

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
            out[name] = Number.isInteger(v) && v >= spec.min &&
                v <= spec.max && (v - spec.min) % (spec.step || 1) === 0
                ? v : spec.def;
    }
    return out;
}

let current = normalize(null);
const listeners = [];
let media = null;

// The server side (connect()): send(msg) -> id or 0; whose settings these
// are (the account's PID, null for a guest or while offline); a local
// change not sent yet (dirty: the account it was made for); the timer of
// the next save, the id of the save awaited and when the last one left.
const remote = {
    send: null,
    account: null,
    dirty: null,
    timer: 0,
    waiting: 0,
    lastSent: -Infinity,
};
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
// The sounds' volume, 0 to 1.
export const volume = () => current.volume / 100;
// How long a piece slides (ms; 0: no slide).
export const animationMs = () => ANIMATION_MS[current.animation];

// Sets `name` to `value` (ignored when not allowed), saves, applies it and
// tells the listeners.
export function set(name, value) {
    const next = normalize({ ...current, [name]: value });
    if (next[name] !== value)
        return;
    replace(next);
    if (remote.account) {
        remote.dirty = remote.account;
        schedule(SAVE_DELAY_MS);
    }
}

// ---- the account's copy on the server -----------------------------------

// send(msg) -> the message's id, or 0 when it could not be sent.
export function connect(send) {
    remote.send = send;
}

function schedule(delay) {
    clearTimeout(remote.timer);
    const wait = Math.max(delay,
                          remote.lastSent + SAVE_EVERY_MS - Date.now());
    remote.timer = setTimeout(push, wait);
}

// Sends the settings to the server when a change waits for it.
function push() {
    remote.timer = 0;
    if (!remote.account || remote.dirty !== remote.account || !remote.send)
        return;
    const id = remote.send({ t: 'settings', settings: { ...current } });
    if (!id) {
        schedule(RETRY_MS); /* offline: welcome sends it when back */
        return;
    }
    remote.waiting = id;
    remote.lastSent = Date.now();
    remote.dirty = null;
}

// Replaces the settings with the server's object (unknown names dropped,
// wrong values defaulted).
function adopt(obj) {
    replace(normalize(obj));
}

// `welcome` or `registered`: whose settings these are now. For an
// account the server's win (msg.settings), unless a change made here for
// that account has not reached it yet; an account with none stored gets
// this browser's.
export function onIdentity(msg) {
    const me = msg.player;
    if (!me || !me.account) {
        remote.account = null;
        remote.dirty = null;
        clearTimeout(remote.timer);
        renderForm();
        return;
    }
    const same = remote.dirty === me.id;
    remote.account = me.id;
    renderForm();
    if (same || msg.settings === null || msg.settings === undefined) {
        remote.dirty = me.id;
        schedule(0);
    } else {
        adopt(msg.settings);
    }
}

// `settings_changed`: another connection of the account saved these.
export function onRemote(msg) {
    if (remote.account && msg.settings && remote.dirty !== remote.account)
        adopt(msg.settings);
}

// `settings_saved` (or an error) answering save `id`.
export function onSaved(id) {
    if (id === remote.waiting)
        remote.waiting = 0;
}

// An error answering a save: tried again later (rate_limited, busy), or
// given up (needs_account: no longer an account).
export function onSaveError(msg) {
    if (msg.id !== remote.waiting)
        return;
    remote.waiting = 0;
    if (msg.code === 'rate_limited' && remote.account) {
        remote.dirty = remote.account;
        schedule(RETRY_MS);
    }
}

// The connection speaks for nobody (logged out, or offline).
export function onSignedOut() {
    remote.account = null;
    remote.waiting = 0;
    clearTimeout(remote.timer);
    renderForm();
}

// Makes `next` (a complete, normal settings object) the settings: saves,
// applies them and tells the listeners of each setting that changed.
function replace(next) {
    const changed = Object.keys(SETTINGS).filter((k) =>
        next[k] !== current[k]);
    current = next;
    save();
    apply();
    for (const name of changed)
        for (const fn of listeners)
            fn(name, next[name]);
}

// Calls fn(name, value) after every change, also from another tab or
// (logged in) another browser of the account.
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
    if (current.boardSize < 100)
        root.dataset.boardSize = String(current.boardSize);
    else
        delete root.dataset.boardSize;
    root.classList.toggle('no-hints', !current.hints);
    root.classList.toggle('no-coords', !current.coords);
    root.classList.toggle('zen', current.zen);
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
    const where = $('settings-where');
    if (where)
        where.textContent = remote.account
            ? 'Saved with your account: they follow you to every device ' +
              'where you log in. Applied at once.'
            : 'Kept in this browser, applied at once. Sign up or log in ' +
              'to keep them with an account on every device.';
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
        else if (el.type === 'radio' || el.tagName === 'SELECT')
            set(el.name, el.value);
        else if (el.value !== '')
            set(el.name, Number(el.value));
    };
    form.addEventListener('change', changed);
    // (a slider applies while it moves)
    form.addEventListener('input', (e) => {
        if (e.target.type === 'range')
            changed(e);
    });
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

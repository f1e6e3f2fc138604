// app.js - the entry point: owns the connection, routes between the lobby
// ('/'), a game ('/g/GID'), a player's games and ratings ('/p/PID') and
// the leaderboard ('/leaderboard'), the tournaments ('/tournaments',
// '/t/EID': arena.js), dispatches server messages to the
// views, and shows toasts, confirmations and the connection status.

import { AccountView } from './account.js';
import { ChallengeView } from './challenge.js';
import { Connection } from './net.js';
import { GameView, setPremoveCount } from './game.js';
import { LeaderboardView } from './leaderboard.js';
import { LobbyView } from './lobby.js';
import { MyGames } from './mygames.js';
import { PlayerView } from './player.js';
import * as Settings from './settings.js';
import { Sound, soundForMove } from './sound.js';
import * as W from './words.js';

const $ = (id) => document.getElementById(id);
const GAME_PATH = /^\/g\/([A-Za-z0-9_-]{1,32})\/?$/;
const LEADERBOARD_PATH = '/leaderboard';
const PLAYER_PATH = /^\/p\/([A-Za-z0-9_-]{1,32})\/?$/;
const ARENAS_PATH = '/tournaments';
const ARENA_PATH = /^\/t\/([A-Za-z0-9_-]{1,32})\/?$/;
const ANALYSIS_PATH = '/analysis';
const MOD_PATH = '/mod';
const TOAST_MS = 7000;

const state = {
    me: null,
    pid: null,             /* the player the views' state belongs to */
    requests: new Map(),   /* id -> what was sent, to explain its error */
    restartToast: null,    /* the "server is restarting" toast, if shown */
};

// The restart notice is over once the server speaks again (its welcome,
// or a game's state after it).
function clearRestartNotice() {
    if (state.restartToast) {
        state.restartToast.remove();
        state.restartToast = null;
    }
}

let conn, game, lobby, leaderboard, player, account, announcer, sound;
let challenges;
// API tokens (tokens.js): loaded when an account first opens the settings
// (few ever make one; a visit does not fetch it).
let tokens = null, tokensLoading = null;
let myGames;
// Block and Report on a player's page (relation.js): loaded the first
// time an account opens another player's page.
let relation = null, relationLoading = null, relationPid = null;

function showRelation(pid) {
    relationPid = pid;
    if (relation || relationLoading || !pid || !state.me ||
        !state.me.account || state.me.id === pid) {
        if (relation)
            relation.show(pid);
        return;
    }
    relationLoading = import('./relation.js').then((m) => {
        relation = new m.RelationView(ctx);
        relation.show(relationPid);
    }).catch((e) => {
        relationLoading = null; // (offline: the next page tries again)
        console.warn(`relation.js: ${e}`);
    });
}

// A view in a module of its own, loaded the first time it is needed: a
// visit that never needs it does not fetch it (static.test.mjs counts).
// with(run) runs run(view) once it is loaded; with.view() is the view,
// or null before.
function lazyView(path, make) {
    let view = null, loading = null;
    const run = (fn) => {
        if (view)
            return fn(view);
        if (!loading)
            loading = import(path).then((m) => (view = make(m)));
        loading.then(fn);
    };
    run.view = () => view;
    return run;
}

// The lobby's and the tournaments' chat rooms (roomchat.js), loaded with
// their first message; roomKeys: the rooms the page shows now.
const roomKeys = { lobby: null, event: null };
const withRooms = lazyView('./roomchat.js', (m) => {
    const r = {
        lobby: new m.RoomChat(ctx, 'lobby',
                              document.querySelector('.lobby-side'), true),
        event: new m.RoomChat(ctx, 'event', $('arena'), false),
    };
    r.lobby.show(roomKeys.lobby);
    r.event.show(roomKeys.event);
    return r;
});

function showRooms(lobbyShown, eid) {
    const rooms = withRooms.view();
    if (lobbyShown !== undefined) {
        roomKeys.lobby = lobbyShown ? 'lobby' : null;
        roomKeys.event = eid;
    }
    if (rooms) {
        rooms.lobby.show(roomKeys.lobby);
        rooms.event.show(roomKeys.event);
    }
}

// The tournaments' view, the analysis board (/analysis), the moderation
// page (/mod).
const withArena = lazyView('./arena.js', (m) => new m.ArenaView(ctx));
const withAnalysisBoard = lazyView('./analysisboard.js',
                                   (m) => new m.AnalysisBoardView(ctx));
const withMod = lazyView('./mod.js', (m) => new m.ModView(ctx));

const ctx = {
    send(msg, req) {
        const id = conn.send(msg);
        if (!id) {
            toast('Not connected to the server. Reconnecting…', 'error');
            return 0;
        }
        if (req)
            state.requests.set(id, req);
        if (state.requests.size > 200)
            state.requests.delete(state.requests.keys().next().value);
        return id;
    },
    me: () => state.me,
    online: () => conn.authed,
    gamesInProgress: () => lobby.games.size,
    toast: (text, kind, action) => toast(text, kind, action),
    confirm: (text, yes, no) => confirmDialog(text, yes, no),
    navigate: (path) => navigate(path),
    myGames: () => myGames.items(),
    isMyGame: (gid) => myGames.games.has(gid),
    shownGame: () => (game && game.gid) || null,
    // the game page's state of gid (null: another game is shown)
    gameState: (gid) => (game && game.gid === gid && game.g) || null,
    // the game page drew g: a tournament game's link (its state's event:
    // a reload, a spectator) and an arena game's Berserk button follow it
    gameRendered: (gid, g) => {
        if (g.event)
            withArena((a) => a.onGameState(gid, g));
        else
            withArena.view()?.renderGame(gid, g);
    },
    changed: () => {
        lobby.renderMine();
        player.renderMine();
    },
    announce: (text) => {
        announcer.textContent = '';
        announcer.textContent = text;
    },
};

// ---- routing ------------------------------------------------------------

function route(stateComing) {
    const m = location.pathname.match(GAME_PATH);
    const p = location.pathname.match(PLAYER_PATH);
    const t = location.pathname.match(ARENA_PATH);
    showRooms(!m && !p && !t && ![MOD_PATH, ANALYSIS_PATH, ARENAS_PATH,
                                   LEADERBOARD_PATH]
                  .includes(location.pathname), t ? t[1] : null);
    if (location.pathname !== LEADERBOARD_PATH)
        leaderboard.hide();
    if (withAnalysisBoard.view() && location.pathname !== ANALYSIS_PATH)
        withAnalysisBoard.view().hide();
    if (withMod.view() && location.pathname !== MOD_PATH)
        withMod.view().hide();
    if (location.pathname === MOD_PATH) {
        lobby.hide();
        game.close();
        player.hide();
        withArena.view()?.hide();
        challenges.showPlayer(null);
        withMod((v) => v.show());
        dockToasts();
        return;
    }
    if (location.pathname === ANALYSIS_PATH) {
        lobby.hide();
        game.close();
        player.hide();
        withArena.view()?.hide();
        challenges.showPlayer(null);
        withAnalysisBoard((b) => b.show(
            new URLSearchParams(location.search)));
        dockToasts();
        return;
    }
    if (t || location.pathname === ARENAS_PATH) {
        lobby.hide();
        game.close();
        player.hide();
        withArena((a) => a.show(t ? t[1] : null));
        dockToasts();
        return;
    }
    withArena.view()?.hide();
    if (m) {
        lobby.hide();
        player.hide();
        game.open(m[1], stateComing);
        withArena.view()?.showOnGame(m[1]);
    } else if (location.pathname === LEADERBOARD_PATH) {
        lobby.hide();
        game.close();
        player.hide();
        leaderboard.show(new URLSearchParams(location.search));
    } else if (p) {
        lobby.hide();
        game.close();
        player.open(p[1], new URLSearchParams(location.search).get('limit'));
    } else {
        game.close();
        player.hide();
        lobby.show();
    }
    challenges.showPlayer(p ? p[1] : null);
    showRelation(p ? p[1] : null);
    dockToasts();
}

// `path` may carry a query (/p/PID?limit=N).
function navigate(path, stateComing) {
    if (location.pathname + location.search !== path)
        history.pushState(null, '', path);
    route(stateComing);
    const main = $('main');
    if (main && document.activeElement === document.body)
        main.focus({ preventScroll: true });
}

// ---- server messages ----------------------------------------------------

function onMessage(msg) {
    switch (msg.t) {
    case 'welcome':
        clearRestartNotice();
        onMaintenance({}); // (one still to come follows the welcome)
        if (msg.id !== undefined)
            state.requests.delete(msg.id);
        state.me = msg.player;
        // Another player now (a login, or a new guest after a logout):
        // what the lobby kept for the last one is not this one's.
        if (state.pid && state.pid !== msg.player.id) {
            lobby.forget();
            myGames.forget();
        }
        state.pid = msg.player.id;
        Settings.onIdentity(msg);
        if (tokens)
            tokens.onIdentity(msg.player);
        renderMe();
        account.onWelcome(msg);
        lobby.onWelcome(msg);
        myGames.request();
        game.onWelcome();
        game.resync();
        player.onWelcome();
        leaderboard.onWelcome();
        challenges.onWelcome();
        if (withMod.view() && location.pathname === MOD_PATH)
            withMod.view().ask();
        if (relation)
            relation.onWelcome();
        else
            showRelation(relationPid);
        withArena.view()?.refresh();
        break;
    case 'registered':
        if (msg.id !== undefined)
            state.requests.delete(msg.id);
        state.me = msg.player;
        Settings.onIdentity(msg);
        if (tokens)
            tokens.onIdentity(msg.player);
        renderMe();
        account.onRegistered(msg);
        lobby.renderRated(); // an account may play rated games now
        player.onWelcome();
        showRelation(relationPid);
        break;
    case 'logged_out':
        if (msg.id !== undefined)
            state.requests.delete(msg.id);
        state.me = null;
        Settings.onSignedOut();
        if (tokens)
            tokens.onSignedOut();
        renderMe();
        account.onLoggedOut(msg);
        break;
    case 'settings_saved':
        state.requests.delete(msg.id);
        Settings.onSaved(msg.id);
        break;
    case 'settings_changed':
        Settings.onRemote(msg);
        break;
    case 'token_created':
    case 'tokens':
    case 'token_revoked':
        state.requests.delete(msg.id);
        if (tokens)
            tokens.onMessage(msg);
        break;
    case 'seeking':
        lobby.onSeeking(msg);
        break;
    case 'lobby':
        lobby.onLobby(msg);
        break;
    case 'seek_cancelled':
        lobby.onSeekCancelled(msg);
        break;
    case 'challenge':
        challenges.onChallenge(msg);
        break;
    case 'challenges':
        challenges.onList(msg);
        break;
    case 'blocks':
    case 'reported':
        if (relation)
            relation.onMessage(msg);
        break;
    case 'invited':
        lobby.games.set(msg.game, { gid: msg.game });
        navigate(`/g/${msg.game}`);
        break;
    case 'my_games':
        state.requests.delete(msg.id);
        myGames.onMyGames(msg);
        break;
    case 'game_start':
        sound.play('start');
        lobby.onGameStart(msg);
        myGames.onGameStart(msg);
        game.onGameStart(msg);
        if (game.gid !== msg.game) {
            if (game.g && game.g.you && game.g.status === 'started') {
                toast('Another game of yours has started.', 'info');
                break;
            }
            navigate(`/g/${msg.game}`, true);
        }
        break;
    case 'state':
        clearRestartNotice();
        lobby.onGameInfo(msg);
        game.onState(msg);
        break;
    case 'moved': {
        // A move the shown game had not seen yet sounds.
        const fresh = game.g && msg.game === game.gid &&
            msg.ply === game.g.ply + 1;
        lobby.onGameInfo(msg);
        game.onMoved(msg);
        myGames.onMoved(msg);
        if (fresh)
            sound.play(soundForMove(msg.san));
        break;
    }
    case 'game_end':
        lobby.onGameInfo(msg);
        myGames.onGameEnd(msg);
        if (game.onEnd(msg))
            sound.play('end');
        break;
    case 'draw_offered':
        game.onDrawOffered(msg);
        break;
    case 'draw_declined':
        game.onDrawDeclined(msg);
        break;
    case 'takeback_requested':
    case 'takeback_declined':
    case 'taken_back':
    case 'time_given':
        game.takeback.onMessage(msg);
        break;
    case 'berserk':
        game.onBerserk(msg);
        break;
    case 'analysis':
    case 'analysis_progress':
        if (game.analysis)
            game.analysis.onMessage(msg);
        break;
    case 'chat':
    case 'chat_history':
    case 'chat_muted':
        if (msg.room === 'lobby' || msg.room === 'event' ||
            (msg.t === 'chat_muted' && withRooms.view()))
            withRooms((r) => r.lobby.onMessage(msg) ||
                      r.event.onMessage(msg));
        if (msg.room !== 'lobby' && msg.room !== 'event')
            game.chat.onMessage(msg);
        break;
    case 'rematch_offered':
        game.onRematchOffered(msg);
        break;
    case 'rematch_declined':
        game.onRematchDeclined(msg);
        break;
    case 'opponent_gone':
        game.onGone(msg);
        break;
    case 'opponent_back':
        game.onBack(msg);
        break;
    case 'watchers':
        game.onWatchers(msg);
        break;
    case 'shutdown':
        clearRestartNotice();
        state.restartToast = toast('The server is restarting. ' +
                                   'Reconnecting…', 'info');
        break;
    case 'store_stall':
        toast('The server cannot store moves at the moment. No clock runs ' +
              'for a move you have not seen.', 'info');
        break;
    case 'store_resumed':
        toast('The server stores moves again.', 'info');
        break;
    case 'cluster_lost':
        toast('This server lost touch with the others: games played ' +
              'elsewhere pause here until it is back.', 'info');
        break;
    case 'cluster_back':
        toast('This server is in touch with the others again.', 'info');
        break;
    case 'arena_list':
        withArena((a) => a.onList(msg));
        break;
    case 'arena_created':
        withArena((a) => a.onCreated(msg));
        break;
    case 'arena_standings':
        withArena((a) => a.onStandings(msg));
        break;
    case 'arena_game':
        withArena((a) => a.onGame(msg));
        break;
    case 'arena_joined':
    case 'arena_withdrawn':
        withArena((a) => a.onJoined(msg));
        break;
    case 'playban':
        lobby.onPlayban(msg);
        break;
    case 'swiss_list':
    case 'swiss_created':
    case 'swiss_standings':
    case 'swiss_game':
    case 'swiss_joined':
    case 'swiss_withdrawn':
        withArena((a) => a.onSwiss(msg));
        break;
    case 'mod_reports':
    case 'mod_player':
    case 'mod_done':
        withMod((v) => v.onMessage(msg));
        break;
    case 'mod_notice':
        toast(`A moderator (${msg.by}) ${{ warn: 'warns you',
            mute: 'muted your chat', unmute: 'lifted your chat mute',
            engine: 'marked you as using an engine: your games are casual',
            unengine: 'took back the engine mark',
            close_account: 'closed your account',
            reopen_account: 'reopened your account',
            disconnect: 'disconnected you',
            chat_delete: 'deleted a chat line of yours' }[
            msg.action] || msg.action}` + (msg.until ? ` until ${new Date(
            msg.until).toLocaleString()}` : '') + `: ${msg.text}`,
        /^(unmute|unengine|reopen_account)$/.test(msg.action) ? 'info'
            : 'error');
        break;
    case 'maintenance':
        onMaintenance(msg);
        break;
    case 'error':
        if (withMod.view() && location.pathname === MOD_PATH &&
            (msg.code === 'not_moderator' || msg.code === 'no_such_player'))
            withMod.view().onMessage(msg);
        onError(msg);
        break;
    default:
        break;
    }
}

// A maintenance a moderator announced (PROTOCOL.md section 4,
// "Moderation"): a banner until its time has passed or it is cancelled.
let maintenanceEnd = 0;

function onMaintenance(msg) {
    const b = document.getElementById('maintenance');
    clearTimeout(maintenanceEnd);
    b.hidden = !msg.at || msg.at <= Date.now();
    if (b.hidden)
        return;
    b.textContent = `Maintenance at ${new Date(msg.at).toLocaleString()} ` +
        `(announced by ${msg.by}): ${msg.text}`;
    maintenanceEnd = setTimeout(() => { b.hidden = true; },
                                Math.min(msg.at - Date.now(), 2 ** 31 - 1));
}

function onError(msg) {
    const req = msg.id !== undefined ? state.requests.get(msg.id) : null;
    if (msg.id !== undefined)
        state.requests.delete(msg.id);
    // Background requests (the lobby's list, unsubscribing) fail quietly
    // into the console; everything a person asked for is answered on screen
    // (a rematch's refusal in the end panel, the rest in a toast).
    if (msg.code === 'bad_token' && conn.lapsed) {
        // An account's saved login no longer works: say which, and offer
        // to log in again.
        const name = conn.lapsed;
        conn.lapsed = null;
        toast(`Your login as ${name} has ended (logged out on another ` +
              'device, or unused for 30 days). You play as a new guest now.',
              'error', { label: 'Log in', run: () => account.open('login',
                                                                  name) });
    } else if (req && req.quiet) {
        console.warn(`server: ${msg.code}: ${msg.msg}`);
        if (req.t === 'settings')
            Settings.onSaveError(msg);
    } else if (!(tokens && tokens.onError(req, msg)) &&
               !(relation && relation.onError(req, msg)) &&
               !account.onError(req, msg)) {
        toast(W.errorText(msg.code, msg.msg), 'error');
    }
    if (req) {
        const rooms = withRooms.view();
        if (rooms && req.t === 'chat')
            rooms.lobby.onError(req, msg) || rooms.event.onError(req, msg);
        lobby.onError(req, msg);
        withArena.view()?.onError(req, msg);
        if (req.t === 'rematch' || req.t === 'rematch_decline')
            game.onRematchError(req, msg);
        else if (req.t === 'analyse' && game.analysis)
            game.analysis.onError();
        else if (req.game && req.game === game.gid)
            game.onError(req, msg);
    }
}

// The settings dialog opens: an account's tokens (tokens.js, once).
function loadTokens() {
    if (!state.me || !state.me.account || tokensLoading)
        return;
    tokensLoading = import('./tokens.js').then(({ TokensView }) => {
        tokens = new TokensView((msg) => {
            const id = conn ? conn.send(msg) : 0;
            if (id)
                state.requests.set(id, { t: msg.t });
            return id;
        });
        tokens.onIdentity(state.me);
    }).catch((e) => {
        tokensLoading = null; // (offline: the next opening tries again)
        console.warn(`tokens.js: ${e}`);
    });
}

function renderMe() {
    account.render();
    // a moderator's link to the moderation page (/mod)
    let link = $('mod-link');
    if (!link && state.me && state.me.moderator) {
        link = document.createElement('a');
        link.id = 'mod-link';
        link.href = MOD_PATH;
        link.textContent = 'Moderation';
        document.querySelector('.topnav').append(' ', link);
    }
    if (link)
        link.hidden = !(state.me && state.me.moderator);
}

// ---- connection status --------------------------------------------------

let connStatus = 'connecting';

function onStatus(status) {
    const prev = connStatus;
    connStatus = status;
    document.body.dataset.conn = status;
    $('retry-btn').hidden = status !== 'offline';
    if (status === 'offline')
        account.onOffline();
    updateConnText();
    if (status === 'online' && prev !== 'online' && game && game.gid &&
        !game.g)
        game.render();
    if (game && game.g && (status === 'online') !== (prev === 'online'))
        game.render();
}

function updateConnText() {
    let text;
    if (connStatus === 'online') {
        text = 'Online';
    } else if (connStatus === 'connecting') {
        text = 'Connecting…';
    } else {
        const left = conn && conn.retryAt
            ? Math.max(0, Math.ceil((conn.retryAt - Date.now()) / 1000)) : 0;
        text = left > 0 ? `Offline, retrying in ${left} s` : 'Offline';
    }
    const el = $('conn-text');
    if (el.textContent !== text)
        el.textContent = text;
}

// ---- toasts and dialogs -------------------------------------------------

// Toasts never lie over what a player watches (issue 29: a premove's note
// covered the opponent's clock, the sign-up note the open seeks): on the
// game page they go in the side column's flow (beside the board on a
// desktop, under it on a phone), on the lobby in the form's column; on
// the other pages they float under the top bar.
function dockToasts() {
    const box = $('toasts');
    const side = $('game').hidden ? null : $('game').querySelector('.side');
    const host = side && !side.hidden ? side
        : !$('lobby').hidden ? $('lobby') : null;
    if (host) {
        if (box.parentElement !== host)
            host.prepend(box);
    } else if (box.parentElement !== document.body) {
        document.body.insertBefore(box, $('main'));
    }
    box.classList.toggle('docked', !!host);
}

// The skip link: to the board on the game page (the square that holds
// the board's tab stop), else to the page's main content.
function skipToContent() {
    const cell = !$('game').hidden && game.g &&
        $('board').querySelector('.sq[tabindex="0"]');
    const to = cell || $('main');
    to.focus();
    to.scrollIntoView({ block: 'nearest' });
}

// Shows `text` for a while; `action` ({ label, run }) adds a button that
// runs it and closes the toast. Returns the toast's element (remove() it
// to close it early).
function toast(text, kind, action) {
    dockToasts();
    const box = $('toasts');
    const el = document.createElement('div');
    el.className = `toast ${kind || 'info'}`;
    el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    const p = document.createElement('span');
    p.textContent = text;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'toast-close';
    close.setAttribute('aria-label', 'Dismiss');
    close.textContent = '×';
    close.addEventListener('click', () => el.remove());
    el.append(p);
    if (action) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'toast-action';
        b.textContent = action.label;
        b.addEventListener('click', () => {
            el.remove();
            action.run();
        });
        el.append(b);
    }
    el.append(close);
    box.append(el);
    while (box.children.length > 4)
        box.firstElementChild.remove();
    setTimeout(() => el.remove(), TOAST_MS);
    return el;
}

let confirmResolve = null;

function confirmDialog(text, yes, no) {
    const dlg = $('confirm');
    if (confirmResolve)
        confirmResolve(false);
    $('confirm-text').textContent = text;
    $('confirm-yes').textContent = yes || 'Yes';
    $('confirm-no').textContent = no || 'Cancel';
    return new Promise((resolve) => {
        confirmResolve = resolve;
        dlg.showModal();
        $('confirm-no').focus();
    });
}

function closeConfirm(answer) {
    const dlg = $('confirm');
    if (dlg.open)
        dlg.close();
    if (confirmResolve) {
        const r = confirmResolve;
        confirmResolve = null;
        r(answer);
    }
}

function bindDialogs() {
    $('confirm-yes').addEventListener('click', () => closeConfirm(true));
    $('confirm-no').addEventListener('click', () => closeConfirm(false));
    $('confirm').addEventListener('close', () => closeConfirm(false));

    const nameDlg = $('name-dialog');
    $('rename-btn').addEventListener('click', () => {
        $('name-input').value = '';
        $('name-error').hidden = true;
        nameDlg.showModal();
        $('name-input').focus();
    });
    $('name-cancel').addEventListener('click', () => nameDlg.close());
    const submit = () => {
        const name = $('name-input').value.trim();
        if (!/^[A-Za-z0-9_-]{1,20}$/.test(name)) {
            $('name-error').textContent = 'Use 1 to 20 letters, digits, _ ' +
                'or -.';
            $('name-error').hidden = false;
            return;
        }
        nameDlg.close();
        if (lobby.games.size > 0) {
            toast('Finish your games in progress before changing your name.',
                  'error');
            return;
        }
        state.me = null;
        conn.newIdentity(name);
    };
    $('name-ok').addEventListener('click', submit);
    $('name-input').addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
            e.preventDefault();
            submit();
        }
    });
}

// ---- move confirmation ---------------------------------------------------

// With the setting on, a move in a game with a time per move is sent only
// after the player confirms it (the board's moves go through
// game.playMove). A premove does not ask: queueing one is not sending it,
// and a queued premove goes out through sendMove (gameboard.js) when it
// lands.
function confirmPerMove(view) {
    const send = view.playMove.bind(view);
    view.playMove = async (uci) => {
        const g = view.g;
        if (!Settings.confirmMoves() || !g || !g.clock ||
            g.clock.type !== 'per_move' || view.premoving())
            return send(uci);
        const ply = g.ply;
        const ok = await confirmDialog(`Play ${uci.slice(0, 2)}-${
            uci.slice(2)}?`, 'Play the move', 'Take it back');
        if (!ok || view.g !== g || g.ply !== ply) {
            view.render();
            return undefined;
        }
        return send(uci);
    };
}

// ---- start --------------------------------------------------------------

function frame(now) {
    if (game.gid) {
        game.tick(now);
        sound.watchClock(game, now);
    }
    requestAnimationFrame(frame);
}

function start() {
    announcer = document.createElement('div');
    announcer.className = 'sr-only';
    announcer.setAttribute('aria-live', 'polite');
    document.body.append(announcer);

    Settings.init();
    // An account's settings go to the server in the background: a failure
    // is retried (settings.js), never shown.
    Settings.connect((msg) => {
        const id = conn ? conn.send(msg) : 0;
        if (id)
            state.requests.set(id, { t: 'settings', quiet: true });
        return id;
    });
    sound = new Sound(Settings.soundOn, Settings.volume);
    game = new GameView(ctx);
    confirmPerMove(game);
    setPremoveCount(Settings.premoveCount());
    Settings.onChange((name, value) => {
        if (name === 'premoves')
            setPremoveCount(value);
    });
    myGames = new MyGames(ctx);
    lobby = new LobbyView(ctx);
    leaderboard = new LeaderboardView(() => state.me);
    player = new PlayerView(ctx);
    account = new AccountView(ctx);
    challenges = new ChallengeView(ctx);
    $('settings-btn').addEventListener('click', loadTokens);
    conn = new Connection(onMessage, onStatus);
    bindDialogs();

    // Internal links change the page without reloading it.
    document.addEventListener('click', (e) => {
        const a = e.target.closest && e.target.closest('a[href]');
        if (!a || e.defaultPrevented || a.getAttribute('href')[0] === '#' ||
            a.hasAttribute('download') || a.target ||
            e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey)
            return;
        const url = new URL(a.href, location.href);
        if (url.origin !== location.origin ||
            !(url.pathname === '/' || url.pathname === LEADERBOARD_PATH ||
              url.pathname === ARENAS_PATH || ARENA_PATH.test(url.pathname) ||
              GAME_PATH.test(url.pathname) || PLAYER_PATH.test(url.pathname)))
            return;
        e.preventDefault();
        navigate(url.pathname + url.search);
    });
    window.addEventListener('popstate', () => route(false));
    $('retry-btn').addEventListener('click', () => conn.retryNow());
    $('skip-link').addEventListener('click', (e) => {
        e.preventDefault();
        skipToContent();
    });
    setInterval(updateConnText, 500);

    route(false);
    conn.connect();
    requestAnimationFrame(frame);
}

start();

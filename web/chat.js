// chat.js - a game's chat rooms on the game page (PROTOCOL.md, Chat): the
// players' room and the spectators' room, each line with its sender's
// name linking to /p/PID, written as text (never HTML); the input (140
// characters); the "chat off" setting; the server's refusals (a mute with
// its end) shown under the lines.

import * as Settings from './settings.js';

const $ = (id) => document.getElementById(id);
const ROOMS = ['player', 'spectator'];
const KEEP = 200; // lines kept per room on the page

export class ChatPanel {
    // view: the GameView (its g, gid, ctx).
    constructor(view) {
        this.view = view;
        this.reset();
        this.room = 'player';
        $('chat-form').addEventListener('submit', (e) => {
            e.preventDefault();
            this.send();
        });
        for (const room of ROOMS)
            $(`chat-tab-${room}`).addEventListener('click', () => {
                this.room = room;
                this.render();
            });
        $('chat-off-btn').addEventListener('click',
                                           () => Settings.set('chat', 'off'));
        $('chat-on-btn').addEventListener('click',
                                          () => Settings.set('chat', 'on'));
        Settings.onChange((name) => {
            if (name === 'chat')
                this.render();
        });
    }

    // A new game shown: no lines yet (the server replays them).
    reset() {
        this.lines = { player: [], spectator: [] };
        this.note = '';
        this.mutedUntil = 0;
    }

    // chat, chat_history or chat_muted; true when it was one.
    onMessage(msg) {
        if (msg.t === 'chat_muted') {
            this.mutedUntil = msg.until;
            // (after a line refused as muted, its error's words stay:
            // a moderator's mute says so)
            if (!this.mutedNote)
                this.note = 'You are muted until ' +
                    new Date(msg.until).toLocaleTimeString() +
                    ' for sending too many lines.';
            this.mutedNote = false;
            this.render();
            return true;
        }
        if (msg.game !== this.view.gid || !ROOMS.includes(msg.room))
            return false;
        if (Settings.get('chat') === 'off')
            return true; // (a guest's setting the server does not know)
        if (msg.t === 'chat_history')
            this.lines[msg.room] = msg.lines.slice(-KEEP);
        else if (msg.t === 'chat')
            this.lines[msg.room] = this.lines[msg.room].concat([msg])
                .slice(-KEEP);
        else
            return false;
        this.render();
        return true;
    }

    // A chat request refused (its error message).
    onError(msg) {
        this.note = msg.msg || msg.code;
        this.mutedNote = msg.code === 'muted';
        this.render();
    }

    send() {
        const input = $('chat-input');
        const text = input.value;
        if (!text.trim() || !this.view.g)
            return;
        const msg = { t: 'chat', game: this.view.gid, room: this.writeRoom(),
                      text };
        if (this.view.ctx.send(msg, { ...msg, quiet: true })) {
            input.value = '';
            this.note = '';
            this.render();
        }
    }

    // The rooms this page hears: a player the players' (and the
    // spectators' once the game is over), anyone else the spectators'.
    rooms() {
        const g = this.view.g;
        if (!g || !g.you)
            return ['spectator'];
        return g.status === 'ended' ? ROOMS : ['player'];
    }

    // Where a line typed now goes: a player writes in the players' room,
    // a spectator in the spectators'.
    writeRoom() {
        const g = this.view.g;
        return g && g.you ? 'player' : 'spectator';
    }

    render() {
        const g = this.view.g;
        const off = Settings.get('chat') === 'off';
        const rooms = this.rooms();
        $('chat').hidden = !g;
        if (!g)
            return;
        if (!rooms.includes(this.room))
            this.room = rooms[0];
        for (const room of ROOMS) {
            const tab = $(`chat-tab-${room}`);
            tab.hidden = off || !rooms.includes(room);
            tab.setAttribute('aria-selected', String(room === this.room));
        }
        $('chat-tabs').hidden = off || rooms.length < 2;
        $('chat-log').hidden = off;
        $('chat-form').hidden = off || this.room !== this.writeRoom();
        $('chat-off-btn').hidden = off;
        $('chat-on-btn').hidden = !off;
        const note = $('chat-note');
        note.textContent = off ? 'Chat is off.' : this.note;
        note.hidden = !note.textContent;
        if (!off)
            this.renderLines(this.lines[this.room]);
    }

    renderLines(lines) {
        const log = $('chat-log');
        const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
        const items = lines.map((l) => {
            const li = document.createElement('div');
            li.className = 'chat-line';
            const who = document.createElement('a');
            who.href = `/p/${encodeURIComponent(l.pid)}`;
            who.className = 'chat-who';
            who.textContent = l.name;
            const text = document.createElement('span');
            text.className = 'chat-text';
            text.textContent = l.text; // text, never HTML
            li.append(who, text);
            return li;
        });
        log.replaceChildren(...items);
        if (atEnd)
            log.scrollTop = log.scrollHeight;
    }
}

// takeback.js - takeback requests and time given on the game page
// (PROTOCOL.md, Takebacks and time given): the "Takeback" and "+15 s"
// buttons, the prompt to accept or decline the opponent's request (a
// spectator sees who asks), and the messages about them.

import * as W from './words.js';

const $ = (id) => document.getElementById(id);

export class TakebackPanel {
    // view: the GameView (its g, gid, ctx, act, render).
    constructor(view) {
        this.view = view;
        $('takeback-btn').addEventListener('click',
                                           () => view.act('takeback'));
        $('give-time-btn').addEventListener('click',
                                            () => view.act('give_time'));
        $('accept-takeback-btn').addEventListener(
            'click', () => view.act('takeback_accept'));
        $('decline-takeback-btn').addEventListener(
            'click', () => view.act('takeback_decline'));
    }

    // A message about takebacks or time given for the shown game; true
    // when it was one.
    onMessage(msg) {
        const view = this.view;
        const g = view.g;
        if (!g || msg.game !== view.gid)
            return false;
        const color = msg.color === 'white' || msg.color === 'black'
            ? msg.color : null;
        switch (msg.t) {
        case 'takeback_requested':
            g.takeback = color;
            if (color && color !== g.you)
                view.ctx.announce(`${W.colorName(color)} asks to take ` +
                                  'back a move.');
            break;
        case 'takeback_declined':
            if (g.you && g.takeback === g.you) {
                g.takebackDeclined = true; // none again before a move
                view.ctx.toast('Your takeback request was declined.',
                               'info');
            }
            g.takeback = null;
            break;
        case 'taken_back':
            // The full state follows; premoves were for the position
            // taken back.
            g.takeback = null;
            g.premoves = [];
            g.pendingMove = null;
            view.ctx.announce(`Move taken back: ${color
                ? W.colorName(color) : 'a player'} asked.`);
            break;
        case 'time_given':
            if (msg.clocks) {
                g.clocks = msg.clocks;
                g.clocksAt = performance.now();
            }
            view.ctx.announce(`${W.colorName(color)} got 15 seconds more.`);
            break;
        default:
            return false;
        }
        view.render();
        return true;
    }

    // A move was played: a pending request lapsed, a new one is allowed.
    onMoved() {
        const g = this.view.g;
        g.takeback = null;
        g.takebackDeclined = false;
    }

    // The buttons and the prompt for g as it stands.
    render(g, online, started) {
        // (the computer answers no request and needs no time)
        const computer = !!((g.white && g.white.ai) || (g.black && g.black.ai));
        const player = !!g.you && !computer;
        const theirs = started && player && g.takeback === W.other(g.you);
        const watched = started && !player && !!g.takeback;
        $('takeback-panel').hidden = !(theirs || watched);
        $('takeback-text').textContent = watched
            ? `${W.colorName(g.takeback)} asks to take back a move.`
            : 'Your opponent asks to take back a move.';
        $('takeback-buttons').hidden = !theirs;
        const mine = g.takeback === g.you;
        const tb = $('takeback-btn');
        tb.hidden = !(started && player && g.ply >= 2 && !theirs);
        tb.disabled = !online || mine || !!g.takebackDeclined;
        tb.textContent = mine ? 'Takeback asked' : 'Takeback';
        const give = $('give-time-btn');
        give.hidden = !(started && player && g.ply >= 2 && g.clock &&
                        g.clock.type === 'fischer');
        give.disabled = !online;
        for (const id of ['accept-takeback-btn', 'decline-takeback-btn'])
            $(id).disabled = !online;
    }
}

// sound.js - the game's sounds, made in the page with Web Audio (no audio
// files): move, capture, check, castle, start, end and lowtime.
//
// The AudioContext is created on the first user gesture (browsers refuse
// sound before one). Each sound played is named: <html data-last-sound>
// holds the last name and a `chess-sound` event (detail: the name) goes to
// window, for the page's tests and for anyone who wants to follow.
//
// soundForMove() and lowTimeMs() are DOM-free so node can test them.

// The sounds: name -> tones [frequency Hz, start s, length s, waveform].
export const SOUNDS = {
    move: [[520, 0, 0.07, 'triangle']],
    capture: [[300, 0, 0.05, 'square'], [220, 0.04, 0.09, 'triangle']],
    check: [[880, 0, 0.08, 'square'], [990, 0.09, 0.1, 'square']],
    castle: [[520, 0, 0.06, 'triangle'], [440, 0.08, 0.07, 'triangle']],
    start: [[523, 0, 0.1, 'sine'], [659, 0.1, 0.1, 'sine'],
            [784, 0.2, 0.16, 'sine']],
    end: [[784, 0, 0.12, 'sine'], [659, 0.12, 0.12, 'sine'],
          [523, 0.24, 0.24, 'sine']],
    lowtime: [[1175, 0, 0.06, 'square'], [1175, 0.12, 0.06, 'square'],
              [1175, 0.24, 0.06, 'square']],
};

// Low time: 10 s left on a time + increment clock; on a per-move clock a
// fifth of the budget, but never less than 3 s (the larger of the two): a
// fifth of a 5 s budget (1 s) is too late to do anything about it, while
// 3 s still is; for long budgets a fifth is the earlier, useful warning.
// The game page's red clock and the low-time sound share this threshold.
const LOW_FISCHER_MS = 10000;
const LOW_PER_MOVE = 0.2;
const LOW_PER_MOVE_MIN_MS = 3000;
const VOLUME = 0.18;

// The sound of a move from its SAN: a check wins over a castle, a castle
// over a capture.
export function soundForMove(san) {
    const s = String(san || '');
    if (/[+#]$/.test(s))
        return 'check';
    if (/^O-O/.test(s))
        return 'castle';
    if (s.includes('x'))
        return 'capture';
    return 'move';
}

// The time left (ms) at which the low-time sound plays and the clock turns
// red, for clock `clock` (PROTOCOL.md's CLOCK).
export function lowTimeMs(clock) {
    if (clock && clock.type === 'per_move')
        return Math.max(LOW_PER_MOVE_MIN_MS,
                        clock.per_move_s * 1000 * LOW_PER_MOVE);
    return LOW_FISCHER_MS;
}

export class Sound {
    // isOn() -> bool: whether sounds play (the settings' mute switch);
    // level() -> 0 to 1: the settings' volume (0 plays nothing).
    constructor(isOn, level = () => 1) {
        this.isOn = isOn;
        this.level = level;
        this.ctx = null;
        this.lowKey = null;
        const unlock = () => {
            this.unlock();
            if (this.ctx) {
                window.removeEventListener('pointerdown', unlock, true);
                window.removeEventListener('keydown', unlock, true);
            }
        };
        window.addEventListener('pointerdown', unlock, true);
        window.addEventListener('keydown', unlock, true);
    }

    // Creates (or resumes) the AudioContext; call from a user gesture.
    unlock() {
        const AC = window.AudioContext || window.webkitAudioContext;
        if (!AC)
            return;
        try {
            if (!this.ctx)
                this.ctx = new AC();
            if (this.ctx.state === 'suspended')
                this.ctx.resume();
        } catch {
            this.ctx = null;
        }
    }

    // Plays sound `name` (a key of SOUNDS) unless muted or before any
    // gesture. Returns whether it played.
    play(name) {
        const tones = SOUNDS[name];
        const level = this.level();
        if (!tones || !this.isOn() || !this.ctx || !(level > 0))
            return false;
        const ac = this.ctx;
        const t0 = ac.currentTime + 0.01;
        const gain = ac.createGain();
        gain.gain.value = VOLUME * Math.min(1, level);
        gain.connect(ac.destination);
        for (const [freq, at, len, type] of tones) {
            const osc = ac.createOscillator();
            const env = ac.createGain();
            osc.type = type;
            osc.frequency.value = freq;
            env.gain.setValueAtTime(0.0001, t0 + at);
            env.gain.exponentialRampToValueAtTime(1, t0 + at + 0.01);
            env.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
            osc.connect(env);
            env.connect(gain);
            osc.start(t0 + at);
            osc.stop(t0 + at + len + 0.02);
        }
        document.documentElement.dataset.lastSound = name;
        window.dispatchEvent(new CustomEvent('chess-sound', { detail: name }));
        return true;
    }

    // Called every frame with the game view: the low-time sound, once per
    // turn, when the player's own running clock falls to lowTimeMs().
    watchClock(game, now) {
        const g = game.g;
        if (!g || g.status !== 'started' || !g.you || !g.clocks ||
            g.clocks.running !== g.you)
            return;
        const key = `${game.gid}:${g.ply}`;
        if (key === this.lowKey)
            return;
        const ms = game.clockMs(g.you, now);
        if (ms > 0 && ms <= lowTimeMs(g.clock)) {
            this.lowKey = key;
            this.play('lowtime');
        }
    }
}

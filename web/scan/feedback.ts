/**
 * A short tone and a vibration for each verdict, where the device allows; silent elsewhere. Three
 * kinds are told apart by ear, not only by pitch: one high beep (admit), two low buzzes (reject),
 * three rising notes (attention). Sound can be switched off; the choice is kept on the device.
 */

/** What a verdict sounds like: let in, turned away, or let in with something to look at first. */
export type ToneKind = 'admit' | 'reject' | 'attention';

interface Tone {
  /** The notes' pitches, in Hz, played one after the other. */
  notes: readonly number[];
  wave: OscillatorType;
  /** Each note's length and the silence after it, in seconds. */
  noteS: number;
  gapS: number;
  vibrate: number | number[];
}

export const TONES: Readonly<Record<ToneKind, Tone>> = {
  admit: { notes: [880], wave: 'sine', noteS: 0.15, gapS: 0, vibrate: 80 },
  reject: { notes: [220, 220], wave: 'square', noteS: 0.25, gapS: 0.1, vibrate: [200, 100, 200] },
  attention: { notes: [660, 880, 1175], wave: 'triangle', noteS: 0.12, gapS: 0.04, vibrate: [60, 60, 60, 60, 60] },
};

/** Where the sound switch's state is kept (a preference of this device, nothing secret). */
export const SOUND_KEY = 'gate-scanner.sound';

function readSoundOn(): boolean {
  try {
    return localStorage.getItem(SOUND_KEY) !== 'off';
  } catch {
    return true;
  }
}

export class Feedback {
  private audio: AudioContext | null = null;
  private soundOn = readSoundOn();

  /** Whether verdicts make a sound (vibration is kept either way: it disturbs nobody). */
  get sound(): boolean {
    return this.soundOn;
  }

  set sound(on: boolean) {
    this.soundOn = on;
    try {
      localStorage.setItem(SOUND_KEY, on ? 'on' : 'off');
    } catch {
      // Storage refused (a private window's quota): the switch still works until the page closes.
    }
  }

  /** Called from a tap: browsers only let a page make sound after one. */
  unlock(): void {
    if (this.audio === null && typeof AudioContext === 'function') {
      try {
        this.audio = new AudioContext();
      } catch {
        this.audio = null;
      }
    }
    void this.audio?.resume().catch(() => undefined);
  }

  /** The verdict's tone and vibration. */
  give(kind: ToneKind): void {
    const tone = TONES[kind];
    navigator.vibrate?.(tone.vibrate);
    const audio = this.audio;
    if (!this.soundOn || audio === null) return;
    if (audio.state === 'running') {
      play(audio, tone);
      return;
    }
    // Made by the tap just now, the audio starts a moment later: the tone waits for it, briefly.
    const asked = Date.now();
    void audio
      .resume()
      .then(() => {
        if (Date.now() - asked < LATE_TONE_MS && this.soundOn) play(audio, tone);
      })
      .catch(() => undefined);
  }
}

/** A tone later than this after its verdict is not played: it would be taken for the next one's. */
const LATE_TONE_MS = 300;

/** The tone's notes, one after the other, each an oscillator of its own. */
function play(audio: AudioContext, tone: Tone): void {
  const gain = audio.createGain();
  gain.gain.value = 0.2;
  gain.connect(audio.destination);
  let at = audio.currentTime;
  for (const pitch of tone.notes) {
    const note = audio.createOscillator();
    note.type = tone.wave;
    note.frequency.value = pitch;
    note.connect(gain);
    note.start(at);
    note.stop(at + tone.noteS);
    at += tone.noteS + tone.gapS;
  }
}

/**
 * The tone a verdict's look calls for: a refusal is a refusal, attention or not; an admit whose holder
 * needs attention has its own; anything else that lets the holder pass (an exit) sounds like an admit.
 */
export function toneFor(look: { tone: string; attention: boolean }): ToneKind {
  if (look.tone === 'reject') return 'reject';
  return look.tone === 'admit' && look.attention ? 'attention' : 'admit';
}

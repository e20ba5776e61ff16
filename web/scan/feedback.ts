/** A short tone and a vibration where the device allows; silent elsewhere. */
export class Feedback {
  private audio: AudioContext | null = null;

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

  /** A high short tone for a holder who may pass, a low long one (twice felt) for a refusal. */
  give(pass: boolean): void {
    navigator.vibrate?.(pass ? 80 : [200, 100, 200]);
    const audio = this.audio;
    if (audio === null || audio.state !== 'running') return;
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = pass ? 880 : 220;
    gain.gain.value = 0.2;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + (pass ? 0.15 : 0.45));
  }
}

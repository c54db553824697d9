/** A y/n question on one line; it takes every key while it is open. */
import { useRef } from 'react';
import { Text } from 'ink';
import { useKeys } from './keys.js';

export interface Question {
  prompt: string;
  onYes(): void;
}

/** Render inside a KeyLayer, so it sees keys before the view that asks. */
export function Confirm({ question, onClose }: { question: Question; onClose(): void }) {
  // One answer per question, however fast the keys come.
  const answered = useRef(false);
  useKeys((input, key) => {
    if (answered.current) return true;
    if (input === 'y' || input === 'Y') {
      answered.current = true;
      onClose();
      question.onYes();
    } else if (input === 'n' || input === 'N' || input === 'q' || key.escape) {
      answered.current = true;
      onClose();
    }
    return true;
  });
  return (
    <Text color="yellow" bold>
      {question.prompt} (y/n)
    </Text>
  );
}

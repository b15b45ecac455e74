import { Circle, Group, Text } from 'react-konva';
import type { Pin } from '../../core/surface';

/** Review issues pinned on the image, numbered as the issue list numbers them; in image pixels. */
export function Pins({ pins, scale }: { pins: Pin[]; scale: number }) {
  return (
    <>
      {pins.map((pin) => (
        <Group key={pin.id} x={pin.position[0]} y={pin.position[1]} name={`pin pin-${pin.id}`}>
          <Circle
            radius={9 / scale}
            fill={pin.resolved ? '#067647' : '#b42318'}
            stroke="#fff"
            strokeWidth={2}
            strokeScaleEnabled={false}
          />
          <Text
            text={pin.label}
            x={-9 / scale}
            y={-6 / scale}
            width={18 / scale}
            align="center"
            fontSize={12 / scale}
            fontStyle="bold"
            fill="#fff"
            listening={false}
          />
        </Group>
      ))}
    </>
  );
}

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../core/index.js';

type ContentBlock = CallToolResult['content'][number];

/**
 * Renders a tool result's content as the text a model reads: text blocks verbatim, everything else
 * (images, audio, resource links, binary resources) as a short bracketed description. When there is no
 * content but `structuredContent`, that is rendered as JSON.
 */
export function renderMcpContent(result: CallToolResult): string {
  const parts = result.content.map(renderBlock).filter((part) => part !== '');
  if (parts.length === 0 && isPlainObject(result.structuredContent)) {
    return JSON.stringify(result.structuredContent);
  }
  return parts.join('\n');
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image: ${block.mimeType}, ${describeBase64Size(block.data)}]`;
    case 'audio':
      return `[audio: ${block.mimeType}, ${describeBase64Size(block.data)}]`;
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') return resource.text;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      const mime = resource.mimeType ? `, ${resource.mimeType}` : '';
      return `[resource: ${resource.uri}${mime}, ${describeBase64Size(blob)}]`;
    }
    default:
      return `[${String((block as { type?: unknown }).type)} content]`;
  }
}

function describeBase64Size(data: string): string {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  const bytes = Math.max(0, Math.floor((data.length * 3) / 4) - padding);
  return `${bytes} bytes`;
}

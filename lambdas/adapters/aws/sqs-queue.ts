/** The Queue port on SQS: the message id SQS assigns is what receipts carry as queue_message_id. */
import { GetQueueAttributesCommand, SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MAX_QUEUE_BATCH, type Queue, type QueueMessage, type QueueName } from '../../domain/ports.js';

export class SqsQueue implements Queue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly urls: Record<QueueName, string>,
    /** Dead-letter queue URLs of the queues whose consumers give up on purpose (deliveries). */
    private readonly deadLetterUrls: Partial<Record<QueueName, string>> = {},
  ) {}

  async send(queue: QueueName, message: QueueMessage): Promise<string> {
    const out = await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.urls[queue],
        MessageBody: JSON.stringify(message.body),
        ...(message.delaySeconds ? { DelaySeconds: message.delaySeconds } : {}),
      }),
    );
    if (!out.MessageId) throw new Error('SQS SendMessage returned no MessageId');
    return out.MessageId;
  }

  async sendBatch(queue: QueueName, messages: readonly QueueMessage[]): Promise<number[]> {
    if (messages.length === 0) return [];
    if (messages.length > MAX_QUEUE_BATCH) throw new RangeError(`at most ${MAX_QUEUE_BATCH} messages per batch, got ${messages.length}`);
    const out = await this.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: this.urls[queue],
        Entries: messages.map((message, index) => ({ Id: String(index), MessageBody: JSON.stringify(message.body) })),
      }),
    );
    return (out.Failed ?? []).map((failure) => Number(failure.Id));
  }

  async sendToDeadLetters(queue: QueueName, message: QueueMessage): Promise<void> {
    const url = this.deadLetterUrls[queue];
    if (!url) throw new Error(`no dead-letter queue configured for the ${queue} queue`);
    await this.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(message.body) }));
  }

  async ping(): Promise<void> {
    await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl: this.urls.events, AttributeNames: ['QueueArn'] }));
  }
}

/** The Queue port on SQS: the message id SQS assigns is what receipts carry as queue_message_id. */
import { GetQueueAttributesCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Queue, QueueMessage, QueueName } from '../../domain/ports.js';

export class SqsQueue implements Queue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly urls: Record<QueueName, string>,
  ) {}

  async send(queue: QueueName, message: QueueMessage): Promise<string> {
    const out = await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.urls[queue], MessageBody: JSON.stringify(message.body) }),
    );
    if (!out.MessageId) throw new Error('SQS SendMessage returned no MessageId');
    return out.MessageId;
  }

  async ping(): Promise<void> {
    await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl: this.urls.events, AttributeNames: ['QueueArn'] }));
  }
}

process.stdout.write('agent-ledger\n');
